package ports_test

import (
	"testing"

	"connectrpc.com/connect"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/apperr"
	"bidradar/services/subscription/internal/adapters/localpay"
)

// Free text entering the service goes through pkg/freetext: a billing
// profile with a bidirectional override or a control character, or an
// Idempotency-Key with one, is refused with a detail; nothing is stored.
func TestFreeTextRefused(t *testing.T) {
	h, _ := paymentsHandler(t, localpay.Provider{})
	good := &subscriptionv1.UpdateBillingProfileRequest{Kind: "company", Name: "บริษัท ทดสอบ จำกัด", TaxId: "0105551234567",
		HeadOffice: true, Address: "99/1 ถนนสีลม\nกรุงเทพมหานคร 10500"}
	for name, edit := range map[string]func(*subscriptionv1.UpdateBillingProfileRequest){
		"RLO in the name": func(r *subscriptionv1.UpdateBillingProfileRequest) {
			r.Name = "บริษัท \u202eดำกัจ"
		},
		"LRI in the name":      func(r *subscriptionv1.UpdateBillingProfileRequest) { r.Name = "ABC \u2066Co\u2069" },
		"newline in the name":  func(r *subscriptionv1.UpdateBillingProfileRequest) { r.Name = "บริษัท\nจำกัด" },
		"bell in the address":  func(r *subscriptionv1.UpdateBillingProfileRequest) { r.Address = "99 \u0007ถนน" },
		"C1 in the address":    func(r *subscriptionv1.UpdateBillingProfileRequest) { r.Address = "99 \u009bถนน" },
		"PDF in the address":   func(r *subscriptionv1.UpdateBillingProfileRequest) { r.Address = "99 \u202cถนน" },
		"not UTF-8 in address": func(r *subscriptionv1.UpdateBillingProfileRequest) { r.Address = "99 \xffถนน" },
	} {
		req := *good
		edit(&req)
		_, err := h.UpdateBillingProfile(user(ann), connect.NewRequest(&req))
		if kindOf(err) != apperr.InvalidArgument {
			t.Errorf("%s: %v, want invalid argument", name, err)
		}
	}
	if r, err := h.GetBillingProfile(user(ann), connect.NewRequest(&subscriptionv1.GetBillingProfileRequest{})); err != nil || r.Msg.GetExists() {
		t.Fatalf("a refused profile was stored: %v %v", r, err)
	}
	if _, err := h.UpdateBillingProfile(user(ann), connect.NewRequest(good)); err != nil {
		t.Fatalf("an address on two lines: %v", err)
	}
	req := connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "pro", Period: "monthly", Method: "card"})
	req.Header().Set("Idempotency-Key", "click\u202e1")
	if _, err := h.CreateCheckout(user(ann), req); kindOf(err) != apperr.InvalidArgument {
		t.Fatalf("Idempotency-Key with an override: %v", err)
	}
}
