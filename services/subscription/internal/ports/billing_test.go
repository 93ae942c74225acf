package ports_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/apperr"
	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/subscription/internal/adapters/localpay"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/adapters/stripepay"
	"bidradar/services/subscription/internal/app"
	"bidradar/services/subscription/internal/domain"
	"bidradar/services/subscription/internal/ports"
	"bidradar/services/subscription/subscriptionsvc"
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
		req := proto.Clone(good).(*subscriptionv1.UpdateBillingProfileRequest)
		edit(req)
		_, err := h.UpdateBillingProfile(user(ann), connect.NewRequest(req))
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

// Stripe fulfilment applies once per checkout session: a second signed event
// for the same session under another event id (async_payment_succeeded
// after completed, or a resend) extends nothing; a session paid at another
// amount than its price grants nothing.
func TestStripeFulfilOncePerSessionAtItsPrice(t *testing.T) {
	h, pool := paymentsHandler(t, stripepay.New("sk_test_123", secret, "http://127.0.0.1:1", "https://app.example"))
	ctx := context.Background()
	post := func(id, typ string, obj map[string]any) {
		t.Helper()
		ev := event(id, typ, time.Now(), obj)
		if _, err := h.HandleProviderEvent(ctx, connect.NewRequest(&subscriptionv1.HandleProviderEventRequest{Payload: ev, Signature: sign(ev, time.Now(), secret)})); err != nil {
			t.Fatal(err)
		}
	}
	end := func(u string) string {
		r, err := h.GetMySubscription(user(u), connect.NewRequest(&subscriptionv1.GetMySubscriptionRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		return r.Msg.GetTier() + " " + r.Msg.GetSubscription().GetEndDate()
	}
	count := func(q string, args ...any) int {
		var n int
		if err := pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	pass := session("")
	pass["mode"], pass["metadata"] = "payment", map[string]string{"tier": "pro", "period": "monthly", "method": "promptpay", "user_id": ann}
	post("evt_a", "checkout.session.completed", pass)
	first := end(ann)
	post("evt_b", "checkout.session.async_payment_succeeded", pass)
	post("evt_c", "checkout.session.completed", pass)
	if got := end(ann); got != first || first == "free " {
		t.Fatalf("one session granted twice: %q then %q", first, got)
	}
	if n := count(`SELECT count(*) FROM payments WHERE status = 'succeeded'`); n != 1 {
		t.Fatalf("%d payments for one session", n)
	}

	for i, amount := range []int64{1, 14900, 1490000, 149001} {
		cheap := session("")
		cheap["id"], cheap["client_reference_id"], cheap["amount_total"] = fmt.Sprintf("cs_cheap_%d", i), bob, amount
		cheap["mode"], cheap["metadata"] = "payment", map[string]string{"tier": "pro", "period": "monthly", "method": "promptpay", "user_id": bob}
		post(fmt.Sprintf("evt_cheap_%d", i), "checkout.session.completed", cheap)
	}
	if got := end(bob); got != "free " || count(`SELECT count(*) FROM payments WHERE user_id = $1`, bob) != 0 {
		t.Fatalf("a wrong amount was fulfilled: %q", got)
	}
}

// Two completions of one local checkout at once (a double click, two tabs):
// one payment; one answer completes it, the other says it is done, and both
// agree with what was stored.
func TestLocalCompletionsAtOnce(t *testing.T) {
	h, pool := paymentsHandler(t, localpay.Provider{})
	for round, outcomes := range [][2]string{{"paid", "paid"}, {"paid", "failed"}, {"failed", "paid"}} {
		u := fmt.Sprintf("%08d-1111-4111-8111-111111111111", round)
		co, err := h.CreateCheckout(user(u), connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "starter", Period: "monthly", Method: "promptpay"}))
		if err != nil {
			t.Fatal(err)
		}
		type answer struct {
			status string
			err    error
		}
		answers := make([]answer, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, outcome := range outcomes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				r, err := h.CompleteLocalCheckout(user(u), connect.NewRequest(&subscriptionv1.CompleteLocalCheckoutRequest{SessionId: co.Msg.GetSessionId(), Outcome: outcome}))
				if err == nil {
					answers[i] = answer{status: r.Msg.GetCheckout().GetStatus()}
				} else {
					answers[i] = answer{err: err}
				}
			}()
		}
		close(start)
		wg.Wait()
		var stored string
		if err := pool.QueryRow(context.Background(), `SELECT status FROM checkouts WHERE session_id = $1`, co.Msg.GetSessionId()).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		won := 0
		for i, a := range answers {
			switch {
			case a.err == nil:
				won++
				if a.status != stored || a.status != outcomes[i] {
					t.Errorf("%v: answer %d says %q for %q, stored %q", outcomes, i, a.status, outcomes[i], stored)
				}
			case !errors.Is(a.err, domain.ErrCheckoutDone):
				t.Errorf("%v: answer %d: %v", outcomes, i, a.err)
			}
		}
		var payments int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM payments WHERE user_id = $1`, u).Scan(&payments)
		if won != 1 || payments != 1 {
			t.Fatalf("%v: %d answers completed it, %d payments (%+v)", outcomes, won, payments, answers)
		}
	}
}

// Starting checkouts is limited per account (each opens a session at the
// provider): past the limit a minute, 429 with Retry-After until the oldest
// leaves the minute; a double click (the same key) costs nothing, and other
// accounts are not affected.
func TestCheckoutRateLimit(t *testing.T) {
	pool, err := subscriptionsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	at := clock
	h := ports.NewHandler(app.New(postgres.New(pool), localpay.Provider{}, func() time.Time { return at }, nil).WithCheckoutLimit(3))
	start := func(u, key string) error {
		req := connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "pro", Period: "monthly", Method: "card"})
		req.Header().Set("Idempotency-Key", key)
		_, err := h.CreateCheckout(user(u), req)
		return err
	}
	for i := range 3 {
		if err := start(ann, fmt.Sprint("k", i)); err != nil {
			t.Fatal(err)
		}
		at = at.Add(10 * time.Second)
	}
	if err := start(ann, "k0"); err != nil {
		t.Fatalf("a double click after the limit: %v", err)
	}
	err = start(ann, "k3")
	var ce *connect.Error
	if kindOf(err) != apperr.ResourceExhausted || !errors.As(apperr.ToConnect(err), &ce) || apperr.ToConnect(err).Meta().Get("Retry-After") != "30" {
		t.Fatalf("fourth in a minute: %v", err)
	}
	if err := start(bob, "k3"); err != nil {
		t.Fatalf("another account: %v", err)
	}
	at = at.Add(30 * time.Second) // the first left the minute
	if err := start(ann, "k3"); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
	if err := start(ann, "k4"); kindOf(err) != apperr.ResourceExhausted {
		t.Fatalf("the limit holds after the wait: %v", err)
	}
	// A burst at once does not slip past the count.
	const carol = "33333333-3333-4333-8333-333333333333"
	var wg sync.WaitGroup
	var mu sync.Mutex
	started := 0
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := start(carol, fmt.Sprint("burst", i))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				started++
			case kindOf(err) != apperr.ResourceExhausted:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if started != 3 {
		t.Fatalf("a burst started %d checkouts, want 3", started)
	}
}

// The tax invoice names the buyer given at checkout (checked like the
// billing profile, and saved as it); a payer who asks for a plain receipt
// gets one naming nobody, whatever the profile says.
func TestCheckoutNamesTheBuyer(t *testing.T) {
	h, _ := paymentsHandler(t, localpay.Provider{})
	company := &subscriptionv1.BillingProfile{Kind: "company", Name: "บริษัท รับเหมา ทดสอบ จำกัด", TaxId: "0-1055-51234-56-7",
		Branch: "00012", Address: "99/1 ถนนสีลม แขวงสุริยวงศ์\nเขตบางรัก กรุงเทพมหานคร 10500"}
	pay := func(u string, m *subscriptionv1.CreateCheckoutRequest) *subscriptionv1.Receipt {
		t.Helper()
		co, err := h.CreateCheckout(user(u), connect.NewRequest(m))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.CompleteLocalCheckout(user(u), connect.NewRequest(&subscriptionv1.CompleteLocalCheckoutRequest{SessionId: co.Msg.GetSessionId(), Outcome: "paid"})); err != nil {
			t.Fatal(err)
		}
		pays, err := h.ListPayments(user(u), connect.NewRequest(&subscriptionv1.ListPaymentsRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		r, err := h.GetReceipt(user(u), connect.NewRequest(&subscriptionv1.GetReceiptRequest{Number: pays.Msg.GetPayments()[0].GetReceiptNumber()}))
		if err != nil {
			t.Fatal(err)
		}
		return r.Msg.GetReceipt()
	}
	bad := proto.Clone(company).(*subscriptionv1.BillingProfile)
	bad.TaxId = "0105551234568"
	for name, m := range map[string]*subscriptionv1.CreateCheckoutRequest{
		"bad check digit":      {Tier: "pro", Period: "monthly", Method: "card", Buyer: bad},
		"buyer and no invoice": {Tier: "pro", Period: "monthly", Method: "card", Buyer: company, ReceiptOnly: true},
	} {
		if _, err := h.CreateCheckout(user(ann), connect.NewRequest(m)); kindOf(err) != apperr.InvalidArgument {
			t.Fatalf("%s: %v", name, err)
		}
	}
	r := pay(ann, &subscriptionv1.CreateCheckoutRequest{Tier: "starter", Period: "monthly", Method: "promptpay", Buyer: company})
	b := r.GetBuyer()
	if !r.GetBuyerHasProfile() || b.GetName() != company.GetName() || b.GetTaxId() != "0105551234567" || b.GetBranchLabel() != "สาขาที่ 00012" ||
		b.GetAddress() != company.GetAddress() || r.GetCanReissue() {
		t.Fatalf("tax invoice: %v", r)
	}
	prof, err := h.GetBillingProfile(user(ann), connect.NewRequest(&subscriptionv1.GetBillingProfileRequest{}))
	if err != nil || !prof.Msg.GetExists() || prof.Msg.GetProfile().GetTaxId() != "0105551234567" {
		t.Fatalf("the buyer is kept for the next receipts: %v %v", prof, err)
	}
	r = pay(ann, &subscriptionv1.CreateCheckoutRequest{Tier: "starter", Period: "monthly", Method: "promptpay", ReceiptOnly: true})
	if r.GetBuyerHasProfile() || r.GetBuyer().GetEmail() != "1111@example.com" || !r.GetCanReissue() {
		t.Fatalf("a plain receipt: %v", r)
	}
}

// A receipt issued without a buyer is reissued once as a replacement tax
// invoice (ใบกำกับภาษีฉบับแทน): a new number citing the original, which
// stays as it was; a second reissue, a reissue of the replacement or of a
// receipt that names a buyer is 409 with a detail; nobody else's.
func TestReissueOnceAsReplacementTaxInvoice(t *testing.T) {
	h, pool := paymentsHandler(t, localpay.Provider{})
	ctx := context.Background()
	co, err := h.CreateCheckout(user(ann), connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "pro", Period: "monthly", Method: "promptpay"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.CompleteLocalCheckout(user(ann), connect.NewRequest(&subscriptionv1.CompleteLocalCheckoutRequest{SessionId: co.Msg.GetSessionId(), Outcome: "paid"})); err != nil {
		t.Fatal(err)
	}
	get := func(u, number string) *subscriptionv1.Receipt {
		t.Helper()
		r, err := h.GetReceipt(user(u), connect.NewRequest(&subscriptionv1.GetReceiptRequest{Number: number}))
		if err != nil {
			t.Fatal(err)
		}
		return r.Msg.GetReceipt()
	}
	reissue := func(u, number string, b *subscriptionv1.BillingProfile) (*subscriptionv1.Receipt, error) {
		r, err := h.ReissueReceipt(user(u), connect.NewRequest(&subscriptionv1.ReissueReceiptRequest{Number: number, Buyer: b}))
		if err != nil {
			return nil, err
		}
		return r.Msg.GetReceipt(), nil
	}
	const original = "RC2569-000001"
	before := get(ann, original)
	if before.GetBuyerHasProfile() || !before.GetCanReissue() {
		t.Fatalf("original: %v", before)
	}
	if _, err := reissue(ann, original, nil); kindOf(err) != apperr.InvalidArgument {
		t.Fatalf("no buyer and no profile: %v", err)
	}
	company := &subscriptionv1.BillingProfile{Kind: "company", Name: "บริษัท ทดสอบ จำกัด", TaxId: "0105551234567", HeadOffice: true,
		Address: "99 ถนนสีลม กรุงเทพมหานคร 10500"}
	if _, err := reissue(bob, original, company); kindOf(err) != apperr.NotFound {
		t.Fatalf("bob reissues ann's: %v", err)
	}
	evil := proto.Clone(company).(*subscriptionv1.BillingProfile)
	evil.Name = "บริษัท \u202eดำกัจ"
	if _, err := reissue(ann, original, evil); kindOf(err) != apperr.InvalidArgument {
		t.Fatalf("an override in the buyer: %v", err)
	}

	// Two at once: one replacement.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	outs := make([]*subscriptionv1.Receipt, 2)
	for i := range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); outs[i], errs[i] = reissue(ann, original, company) }()
	}
	wg.Wait()
	var rep *subscriptionv1.Receipt
	for i := range 2 {
		switch {
		case errs[i] == nil && rep == nil:
			rep = outs[i]
		case kindOf(errs[i]) != apperr.AlreadyExists:
			t.Fatalf("reissues at once: %v", errs)
		}
	}
	if rep == nil {
		t.Fatalf("no reissue succeeded: %v", errs)
	}
	if rep.GetNumber() != "RC2569-000002" || rep.GetReplacesNumber() != original || rep.GetReplacesIssuedDate() != before.GetIssuedDate() ||
		rep.GetBuyer().GetName() != "บริษัท ทดสอบ จำกัด" || rep.GetBuyer().GetBranchLabel() != "สำนักงานใหญ่" ||
		rep.GetAmountSatang() != before.GetAmountSatang() || rep.GetVatSatang() != before.GetVatSatang() || rep.GetCanReissue() {
		t.Fatalf("replacement: %v", rep)
	}
	after := get(ann, original)
	if after.GetBuyerHasProfile() || after.GetReplacedByNumber() != rep.GetNumber() || after.GetCanReissue() ||
		after.GetIssuedDate() != before.GetIssuedDate() || after.GetBuyer().GetEmail() != before.GetBuyer().GetEmail() {
		t.Fatalf("the original changed: %v", after)
	}
	_, err = reissue(ann, original, company)
	var ce *connect.Error
	if kindOf(err) != apperr.AlreadyExists || !errors.As(apperr.ToConnect(err), &ce) || !strings.Contains(ce.Message(), rep.GetNumber()) {
		t.Fatalf("second reissue: %v", err)
	}
	if _, err := reissue(ann, rep.GetNumber(), company); kindOf(err) != apperr.AlreadyExists {
		t.Fatalf("reissue of the replacement: %v", err)
	}
	pays, err := h.ListPayments(user(ann), connect.NewRequest(&subscriptionv1.ListPaymentsRequest{}))
	if err != nil || len(pays.Msg.GetPayments()) != 1 || pays.Msg.GetPayments()[0].GetReceiptNumber() != original ||
		pays.Msg.GetPayments()[0].GetReplacementNumber() != rep.GetNumber() {
		t.Fatalf("payments: %v %v", pays, err)
	}
	var subject string
	if err := pool.QueryRow(ctx, `SELECT payload->>'subject' FROM queue_jobs WHERE kind = 'mail' ORDER BY id DESC LIMIT 1`).Scan(&subject); err != nil ||
		!strings.Contains(subject, "(ใบแทน)") || !strings.Contains(subject, rep.GetNumber()) {
		t.Fatalf("replacement mail: %q %v", subject, err)
	}
	// A receipt that names a buyer needs no replacement.
	co, _ = h.CreateCheckout(user(ann), connect.NewRequest(&subscriptionv1.CreateCheckoutRequest{Tier: "pro", Period: "monthly", Method: "promptpay", Buyer: company}))
	if _, err := h.CompleteLocalCheckout(user(ann), connect.NewRequest(&subscriptionv1.CompleteLocalCheckoutRequest{SessionId: co.Msg.GetSessionId(), Outcome: "paid"})); err != nil {
		t.Fatal(err)
	}
	if _, err := reissue(ann, "RC2569-000003", nil); kindOf(err) != apperr.AlreadyExists {
		t.Fatalf("reissue of a tax invoice: %v", err)
	}
}
