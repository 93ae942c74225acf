package gw

import (
	"errors"
	"io"
	"net/http"

	"connectrpc.com/connect"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/gen/subscription/v1/subscriptionv1connect"
	"bidradar/pkg/apperr"
)

// webhookPath is where Stripe posts its events (issue 10).
const webhookPath = apiPrefix + "payment/webhook/stripe"

// maxWebhookBody bounds a provider event (Stripe's are a few KiB).
const maxWebhookBody = 256 << 10

// newStripeWebhook hands the raw body and its Stripe-Signature to the
// subscription service, which verifies the signature before reading
// anything: the body must reach it byte for byte, so it cannot go through
// the JSON transcoding of the REST routes.
func newStripeWebhook(httpClient *http.Client, subscriptionTarget string) http.Handler {
	client := subscriptionv1connect.NewSubscriptionServiceClient(httpClient, "http://"+subscriptionTarget)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBody+1))
		if err != nil {
			gatewayError(w, r, http.StatusBadRequest, reasonBodyUnreadable, "The request body could not be read")
			return
		}
		if len(body) > maxWebhookBody {
			gatewayError(w, r, http.StatusRequestEntityTooLarge, reasonBodyTooLarge, "Request body too large")
			return
		}
		sig := r.Header.Get("Stripe-Signature")
		if sig == "" {
			gatewayError(w, r, http.StatusBadRequest, reasonWebhookSignature, "Missing Stripe-Signature header")
			return
		}
		_, err = client.HandleProviderEvent(r.Context(), connect.NewRequest(&subscriptionv1.HandleProviderEventRequest{Payload: body, Signature: sig}))
		if err != nil {
			var ce *connect.Error
			if errors.As(err, &ce) && (ce.Code() == connect.CodeInvalidArgument || ce.Code() == connect.CodeNotFound) {
				kind := apperr.KindOfCode(ce.Code())
				if k, ok := apperr.ParseKind(ce.Meta().Get(apperr.MetaKind)); ok {
					kind = k
				}
				writeError(w, r, apperr.HTTPStatus(apperr.KindOfCode(ce.Code())), kind, ce.Meta().Get(apperr.MetaReason), ce.Message())
				return
			}
			// Any other failure is 503: Stripe retries the event later.
			gatewayError(w, r, http.StatusServiceUnavailable, reasonUnavailable, UnavailableMessage)
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"received": true})
	})
}
