package stripepay_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"bidradar/services/subscription/internal/adapters/stripepay"
	"bidradar/services/subscription/internal/domain"
)

const whsec = "whsec_fuzz_secret"

// signedBy reports whether header carries a v1 signature of payload made
// with the secret (the check Stripe documents, written out independently).
func signedBy(payload []byte, header string) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	m := hmac.New(sha256.New, []byte(whsec))
	m.Write([]byte(ts + "." + string(payload)))
	want := m.Sum(nil)
	for _, s := range sigs {
		// Hex in either case: it is the bytes that are signed.
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// FuzzWebhookVerification: whatever body and Stripe-Signature arrive, the
// webhook never panics, and nothing but a payload signed with the webhook
// secret within the tolerance gets past the signature check.
func FuzzWebhookVerification(f *testing.F) {
	p := stripepay.New("sk_test_x", whsec, "", "")
	now := time.Now()
	for _, body := range []string{
		`{"id":"evt_1","object":"event","type":"checkout.session.completed","created":1,"data":{"object":{"id":"cs_1","client_reference_id":"u1","metadata":{"tier":"pro"},"payment_status":"paid","amount_total":149000}}}`,
		`{"id":"evt_2","object":"event","type":"invoice.paid","data":{"object":{"id":"in_1","lines":{"data":[{"period":{"end":99}}]}}}}`,
		`{"id":"evt_3","object":"event","type":"customer.subscription.deleted","data":{"object":{"id":"sub_1","items":{"data":[]}}}}`,
		`{"id":"","type":"x"}`, `not json`, ``,
	} {
		signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: []byte(body), Secret: whsec, Timestamp: now})
		f.Add([]byte(body), signed.Header)
		f.Add([]byte(body), "t=1,v1=00")
		f.Add([]byte(body+" "), signed.Header)
	}
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		_, err := p.ParseEvent(body, header)
		if errors.Is(err, domain.ErrBadSignature) {
			return
		}
		if !signedBy(body, header) {
			t.Fatalf("unsigned payload got past the signature check (%v): %q / %q", err, body, header)
		}
	})
}
