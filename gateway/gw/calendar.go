package gw

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"

	interestsv1 "bidradar/gen/interests/v1"
	"bidradar/gen/interests/v1/interestsv1connect"
	"bidradar/pkg/apperr"
)

// calendarPrefix is where calendar apps read a user's feed:
// GET /app/backend/api/v1/calendar/{token}.ics. Calendar apps send no
// cookies or bearer tokens, so the secret token in the path is the key.
const calendarPrefix = apiPrefix + "calendar/"

// newCalendarFeed serves the feed as text/calendar: the REST routes answer
// JSON only, so, like the Stripe webhook, it calls the owning service
// (interests' internal RenderCalendarFeed) itself and writes its bytes.
// publicURL gives the events' links their origin (else the request's).
func newCalendarFeed(httpClient *http.Client, interestsTarget, publicURL string, timeout time.Duration) http.Handler {
	client := interestsv1connect.NewInterestsServiceClient(httpClient, "http://"+interestsTarget)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutSuffix(r.PathValue("file"), ".ics")
		if !ok {
			gatewayError(w, r, http.StatusNotFound, reasonNotFound, "Not Found: a calendar link ends in .ics")
			return
		}
		origin := publicURL
		if origin == "" {
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			origin = scheme + "://" + r.Host
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		res, err := client.RenderCalendarFeed(ctx, connect.NewRequest(&interestsv1.RenderCalendarFeedRequest{Token: token, Origin: origin}))
		if err != nil {
			var ce *connect.Error
			if errors.As(err, &ce) && (ce.Code() == connect.CodeInvalidArgument || ce.Code() == connect.CodeNotFound) {
				kind := apperr.KindOfCode(ce.Code())
				writeError(w, r, apperr.HTTPStatus(kind), kind, ce.Meta().Get(apperr.MetaReason), ce.Message())
				return
			}
			gatewayError(w, r, http.StatusServiceUnavailable, reasonUnavailable, UnavailableMessage)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/calendar; charset=utf-8")
		h.Set("Content-Disposition", `inline; filename="bidradar.ics"`)
		// Private to the link's owner; calendar apps poll every few hours.
		h.Set("Cache-Control", "private, max-age=300")
		h.Set("X-Robots-Tag", "noindex")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(res.Msg.Body)
	})
}

// redactPath hides the secret of a calendar link in logs and traces.
func redactPath(p string) string {
	if strings.HasPrefix(p, calendarPrefix) {
		return calendarPrefix + "[token].ics"
	}
	return p
}
