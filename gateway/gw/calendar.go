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
	teamsv1 "bidradar/gen/teams/v1"
	"bidradar/gen/teams/v1/teamsv1connect"
	"bidradar/pkg/apperr"
)

// calendarPrefix is where calendar apps read a user's feed:
// GET /app/backend/api/v1/calendar/{token}.ics. Calendar apps send no
// cookies or bearer tokens, so the secret token in the path is the key.
const calendarPrefix = apiPrefix + "calendar/"

// teamCalendarPrefix is where calendar apps read a team's feed:
// GET /app/backend/api/v1/team-calendar/{token}.ics (docs/architecture.md#teams).
const teamCalendarPrefix = apiPrefix + "team-calendar/"

// renderFunc calls the service that owns a feed for its document.
type renderFunc func(ctx context.Context, token, origin string) ([]byte, error)

// newCalendarFeed serves the feed as text/calendar: the REST routes answer
// JSON only, so, like the Stripe webhook, it calls the owning service
// (interests' internal RenderCalendarFeed) itself and writes its bytes.
// publicURL gives the events' links their origin (else the request's).
func newCalendarFeed(httpClient *http.Client, interestsTarget, publicURL string, timeout time.Duration) http.Handler {
	client := interestsv1connect.NewInterestsServiceClient(httpClient, "http://"+interestsTarget)
	return calendarHandler(func(ctx context.Context, token, origin string) ([]byte, error) {
		res, err := client.RenderCalendarFeed(ctx, connect.NewRequest(&interestsv1.RenderCalendarFeedRequest{Token: token, Origin: origin}))
		if err != nil {
			return nil, err
		}
		return res.Msg.Body, nil
	}, "bidradar.ics", publicURL, timeout)
}

// newTeamCalendarFeed serves a team's feed, as newCalendarFeed does, from
// the teams service's internal RenderCalendarFeed.
func newTeamCalendarFeed(httpClient *http.Client, teamsTarget, publicURL string, timeout time.Duration) http.Handler {
	client := teamsv1connect.NewTeamsServiceClient(httpClient, "http://"+teamsTarget)
	return calendarHandler(func(ctx context.Context, token, origin string) ([]byte, error) {
		res, err := client.RenderCalendarFeed(ctx, connect.NewRequest(&teamsv1.RenderCalendarFeedRequest{Token: token, Origin: origin}))
		if err != nil {
			return nil, err
		}
		return res.Msg.Body, nil
	}, "bidradar-team.ics", publicURL, timeout)
}

func calendarHandler(render renderFunc, filename, publicURL string, timeout time.Duration) http.Handler {
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
		body, err := render(ctx, token, origin)
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
		h.Set("Content-Disposition", `inline; filename="`+filename+`"`)
		// Private to the link's owner; calendar apps poll every few hours.
		h.Set("Cache-Control", "private, max-age=300")
		h.Set("X-Robots-Tag", "noindex")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	})
}

// redactPath hides the secret of a calendar link in logs and traces.
func redactPath(p string) string {
	if strings.HasPrefix(p, calendarPrefix) {
		return calendarPrefix + "[token].ics"
	}
	if strings.HasPrefix(p, teamCalendarPrefix) {
		return teamCalendarPrefix + "[token].ics"
	}
	return p
}
