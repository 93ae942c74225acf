package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/types/known/timestamppb"

	subscriptionv1 "bidradar/gen/subscription/v1"
	"bidradar/pkg/outbox"
	"bidradar/services/subscription/internal/domain"
)

const checkoutColumns = `session_id, provider, user_id, tier, period, method, url, status, amount_satang, created_at, email,
	buyer_fixed, buyer_kind, buyer_name, buyer_tax_id, buyer_head_office, buyer_branch, buyer_address`

func scanCheckout(row pgx.Row) (domain.Checkout, error) {
	var c domain.Checkout
	var fixed bool
	var b nullParty
	err := row.Scan(&c.SessionID, &c.Provider, &c.UserID, &c.Tier, &c.Period, &c.Method, &c.URL, &c.Status, &c.AmountSatang, &c.CreatedAt, &c.Email,
		&fixed, &b.kind, &b.name, &b.taxID, &b.head, &b.branch, &b.address)
	c.Buyer = b.party()
	c.ReceiptOnly = fixed && c.Buyer == nil
	return c, err
}

// nullParty scans a buyer stored in nullable columns (all NULL: none).
type nullParty struct {
	kind, name, taxID, branch, address *string
	head                               *bool
}

func (n nullParty) party() *domain.Party {
	if n.kind == nil {
		return nil
	}
	return &domain.Party{Kind: *n.kind, Name: deref(n.name), TaxID: deref(n.taxID), HeadOffice: n.head != nil && *n.head,
		Branch: deref(n.branch), Address: deref(n.address)}
}

// partyArgs are a buyer's column values: NULLs for none.
func partyArgs(p *domain.Party) []any {
	if p == nil {
		return []any{nil, nil, nil, nil, nil, nil}
	}
	return []any{p.Kind, p.Name, p.TaxID, p.HeadOffice, p.Branch, p.Address}
}

// CheckoutByKey returns the session already created for an idempotency key.
func (r *Repo) CheckoutByKey(ctx context.Context, key string) (domain.Checkout, bool, error) {
	c, err := scanCheckout(r.pool.QueryRow(ctx, `SELECT `+checkoutColumns+` FROM checkouts WHERE idempotency_key = $1`, key))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Checkout{}, false, nil
	}
	return c, err == nil, err
}

// Checkout returns a session by id.
func (r *Repo) Checkout(ctx context.Context, id string) (domain.Checkout, bool, error) {
	c, err := scanCheckout(r.pool.QueryRow(ctx, `SELECT `+checkoutColumns+` FROM checkouts WHERE session_id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Checkout{}, false, nil
	}
	return c, err == nil, err
}

// SaveCheckout stores a new session; a concurrent save with the same key
// keeps the first one and returns it.
func (r *Repo) SaveCheckout(ctx context.Context, c domain.Checkout, key string) (domain.Checkout, error) {
	args := append([]any{c.SessionID, c.Provider, c.UserID, c.Tier, c.Period, c.Method, c.URL, c.AmountSatang, c.CreatedAt, c.Email, key,
		c.Fixed()}, partyArgs(c.Buyer)...)
	_, err := r.pool.Exec(ctx, `INSERT INTO checkouts (`+checkoutColumns+`, idempotency_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', $8, $9, $10, $12, $13, $14, $15, $16, $17, $18, $11)
		ON CONFLICT (idempotency_key) DO NOTHING`, args...)
	if err != nil {
		return domain.Checkout{}, fmt.Errorf("save checkout: %w", err)
	}
	got, _, err := r.CheckoutByKey(ctx, key)
	return got, err
}

// CheckoutAttempt implements domain.Store: under a lock on the user, the
// attempts older than the window go, the rest are counted, and this one is
// recorded when fewer than limit remain; else wait is when the oldest
// leaves the window.
func (r *Repo) CheckoutAttempt(ctx context.Context, userID string, now time.Time, window time.Duration, limit int) (wait time.Duration, err error) {
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('checkout-attempts:' || $1, 0))`, userID); err != nil {
			return err
		}
		since := now.Add(-window)
		if _, err := tx.Exec(ctx, `DELETE FROM checkout_attempts WHERE user_id = $1 AND at <= $2`, userID, since); err != nil {
			return err
		}
		var n int
		var oldest *time.Time
		if err := tx.QueryRow(ctx, `SELECT count(*), min(at) FROM checkout_attempts WHERE user_id = $1`, userID).Scan(&n, &oldest); err != nil {
			return err
		}
		if n >= limit && oldest != nil {
			wait = oldest.Add(window).Sub(now)
			return nil
		}
		_, err := tx.Exec(ctx, `INSERT INTO checkout_attempts (user_id, at) VALUES ($1, $2)`, userID, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("checkout attempt: %w", err)
	}
	return wait, nil
}

// Payments lists a user's payments, newest first.
func (r *Repo) Payments(ctx context.Context, userID string) ([]domain.Payment, error) {
	rows, err := r.pool.Query(ctx, `SELECT p.id::text, p.tier, p.period, p.method, p.status, p.provider_ref, p.amount_satang, p.receipt_no,
		coalesce(p.receipt_number, ''), coalesce(rp.number, ''), p.created_at
		FROM payments p LEFT JOIN receipts rp ON rp.replaces = p.receipt_number
		WHERE p.user_id = $1 ORDER BY p.created_at DESC, p.receipt_number DESC NULLS LAST LIMIT 200`, userID)
	if err != nil {
		return nil, fmt.Errorf("payments: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.Payment, error) {
		var p domain.Payment
		err := row.Scan(&p.ID, &p.Tier, &p.Period, &p.Method, &p.Status, &p.ProviderRef, &p.AmountSatang, &p.ReceiptNo, &p.ReceiptNumber,
			&p.ReplacementNumber, &p.CreatedAt)
		return p, err
	})
}

// Fulfil applies one provider event exactly once: in one transaction it
// records the event id (a replay returns applied = false and changes
// nothing), locks the user's plan and the provider subscription, lets decide
// choose the change, writes it, and puts subscription.changed and
// payment.succeeded in the outbox. The plan changes only when this commits.
//
// A succeeded payment gets its receipt (number, VAT, buyer snapshot) in the
// same transaction, and receiptMail's mail queued; an older card
// subscription the change replaces gets its provider cancel queued (a
// pkg/queue job), so stopping it survives a provider outage.
func (r *Repo) Fulfil(ctx context.Context, ev domain.Event, now time.Time, decide func(domain.FulfilState) domain.Change, receiptMail func(domain.Receipt) domain.Mail) (applied bool, c domain.Change, err error) {
	err = pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		applied, c = false, domain.Change{}
		tag, err := tx.Exec(ctx, `INSERT INTO provider_events (event_id, type, created_at, received_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, ev.ID, ev.Type, ev.Created, now)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		applied = true
		st := domain.FulfilState{Tiers: map[string]domain.Tier{}}
		if st.ProviderSub, err = lockProviderSub(ctx, tx, ev.SubscriptionID); err != nil {
			return err
		}
		user := ev.UserID
		if user == "" && st.ProviderSub != nil {
			user = st.ProviderSub.UserID
		}
		if user != "" {
			// One fulfilment per user at a time, even before the plan row exists.
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('subscription:' || $1, 0))`, user); err != nil {
				return err
			}
			s, err := scanSubscription(tx.QueryRow(ctx, `SELECT `+subColumns+` FROM subscriptions WHERE user_id = $1 FOR UPDATE`, user))
			switch {
			case err == nil:
				st.Sub, st.Found = s, true
			case !errors.Is(err, pgx.ErrNoRows):
				return err
			}
		}
		tiers, err := tiersIn(ctx, tx)
		if err != nil {
			return err
		}
		for _, t := range tiers {
			st.Tiers[t.Name] = t
		}
		if ev.UserID == "" {
			ev.UserID = user
		}
		if user != "" {
			// ForgetUser leaves the user's e-mail change at 'infinity'.
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM email_changes WHERE user_id = $1 AND changed_at = 'infinity')`, user).Scan(&st.Forgotten); err != nil {
				return err
			}
		}
		if ev.SessionID != "" {
			// Locked: events of one session apply one after the other, so
			// the second sees the first's payment (RefPaid).
			co, err := scanCheckout(tx.QueryRow(ctx, `SELECT `+checkoutColumns+` FROM checkouts WHERE session_id = $1 FOR UPDATE`, ev.SessionID))
			switch {
			case err == nil:
				st.Checkout, st.Email = &co, co.Email
			case !errors.Is(err, pgx.ErrNoRows):
				return err
			}
		}
		if ref := paymentRef(ev); ref != "" {
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM payments WHERE provider_ref = $1 AND status = 'succeeded')`, ref).Scan(&st.RefPaid); err != nil {
				return err
			}
		}
		c = decide(st)
		return write(ctx, tx, c, now, r.seller, receiptMail)
	})
	return applied, c, err
}

// paymentRef is the provider reference a payment of ev is recorded under:
// its invoice for invoice events, else its checkout session.
func paymentRef(ev domain.Event) string {
	if ev.Type == domain.EvInvoicePaid || ev.Type == domain.EvInvoicePaymentFailed {
		return ev.InvoiceID
	}
	return ev.SessionID
}

func lockProviderSub(ctx context.Context, tx pgx.Tx, id string) (*domain.ProviderSub, error) {
	if id == "" {
		return nil, nil
	}
	var p domain.ProviderSub
	err := tx.QueryRow(ctx, `SELECT subscription_id, user_id, status, cancel_at_period_end, state_at
		FROM provider_subscriptions WHERE subscription_id = $1 FOR UPDATE`, id).
		Scan(&p.ID, &p.UserID, &p.Status, &p.CancelAtPeriodEnd, &p.StateAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func write(ctx context.Context, tx pgx.Tx, c domain.Change, now time.Time, seller domain.Party, receiptMail func(domain.Receipt) domain.Mail) error {
	if p := c.ProviderSub; p != nil {
		if _, err := tx.Exec(ctx, `INSERT INTO provider_subscriptions (subscription_id, user_id, status, cancel_at_period_end, state_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (subscription_id) DO UPDATE
			SET status = $3, cancel_at_period_end = $4, state_at = $5`, p.ID, p.UserID, p.Status, p.CancelAtPeriodEnd, p.StateAt); err != nil {
			return fmt.Errorf("provider subscription: %w", err)
		}
	}
	if pc := c.ProviderCancel; pc != nil {
		if err := recordProviderCancel(ctx, tx, *pc, now); err != nil {
			return err
		}
	}
	if c.CheckoutID != "" && c.CheckoutStatus != "" {
		if _, err := tx.Exec(ctx, `UPDATE checkouts SET status = $2 WHERE session_id = $1 AND status = 'open'`, c.CheckoutID, c.CheckoutStatus); err != nil {
			return fmt.Errorf("checkout status: %w", err)
		}
	}
	if s := c.Sub; s != nil {
		if err := writeSubscription(ctx, tx, *s, now); err != nil {
			return err
		}
		if err := outbox.EnqueueEvent(ctx, tx, &subscriptionv1.SubscriptionChanged{
			EventId: uuid.NewString(), OccurredAt: timestamppb.New(now), UserId: s.UserID, Tier: s.Tier, Status: s.Status}); err != nil {
			return err
		}
	}
	if p := c.Payment; p != nil {
		status := "failed"
		if p.Succeeded {
			status = "succeeded"
		}
		var id string
		err := tx.QueryRow(ctx, `INSERT INTO payments (id, user_id, tier, period, method, amount_satang, status, provider_ref, created_at)
			VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (provider_ref, status) DO NOTHING RETURNING id::text`,
			p.UserID, p.Tier, p.Period, p.Method, p.AmountSatang, status, p.ProviderRef, now).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("record payment: %w", err)
		}
		if p.Succeeded {
			if err := issueReceipt(ctx, tx, id, *p, now, seller, receiptMail); err != nil {
				return err
			}
			return outbox.EnqueueEvent(ctx, tx, &subscriptionv1.PaymentSucceeded{
				EventId: uuid.NewString(), OccurredAt: timestamppb.New(now), UserId: p.UserID, PaymentId: id,
				Tier: p.Tier, Amount: float64(p.AmountSatang) / 100})
		}
	}
	return nil
}
