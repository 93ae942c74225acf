package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"bidradar/services/subscription/internal/domain"
)

// BillingProfile returns the user's billing profile (ok = false when none).
func (r *Repo) BillingProfile(ctx context.Context, userID string) (domain.Party, bool, error) {
	p, err := profileIn(ctx, r.pool, userID)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Party{}, false, nil
	}
	if err != nil {
		return domain.Party{}, false, fmt.Errorf("billing profile: %w", err)
	}
	return p, true, nil
}

func profileIn(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, userID string) (domain.Party, error) {
	var p domain.Party
	err := q.QueryRow(ctx, `SELECT kind, name, tax_id, head_office, branch, address FROM billing_profiles WHERE user_id = $1`, userID).
		Scan(&p.Kind, &p.Name, &p.TaxID, &p.HeadOffice, &p.Branch, &p.Address)
	return p, err
}

// SaveBillingProfile stores a validated profile (receipts issued later
// carry it; those issued before keep theirs).
func (r *Repo) SaveBillingProfile(ctx context.Context, userID string, p domain.Party, now time.Time) error {
	_, err := r.pool.Exec(ctx, `INSERT INTO billing_profiles (user_id, kind, name, tax_id, head_office, branch, address, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (user_id) DO UPDATE
		SET kind = $2, name = $3, tax_id = $4, head_office = $5, branch = $6, address = $7, updated_at = $8`,
		userID, p.Kind, p.Name, p.TaxID, p.HeadOffice, p.Branch, p.Address, now)
	if err != nil {
		return fmt.Errorf("save billing profile: %w", err)
	}
	return nil
}

// issueReceipt numbers a succeeded payment and stores its receipt, inside
// the payment's transaction: the year's counter row is incremented (its
// row lock orders concurrent payments; a rollback gives the number back),
// so numbers have neither gaps nor duplicates. The receipt mail is queued
// in the same transaction.
func issueReceipt(ctx context.Context, tx pgx.Tx, paymentID string, p domain.PaymentRecord, now time.Time, seller domain.Party, mail func(domain.Receipt) domain.Mail) error {
	year, seq, err := nextReceiptNo(ctx, tx, now)
	if err != nil {
		return err
	}
	// The buyer the checkout fixed, else the billing profile as it stands.
	buyer := p.Buyer.Buyer
	if !p.Buyer.Fixed() {
		switch b, err := profileIn(ctx, tx, p.UserID); {
		case err == nil:
			buyer = &b
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
	}
	rc := domain.NewReceipt(domain.ReceiptNumber(year, seq), paymentID, p, seller, buyer, now)
	if _, err := tx.Exec(ctx, `UPDATE payments SET receipt_no = $2, receipt_number = $3 WHERE id = $1`, paymentID, seq, rc.Number); err != nil {
		return fmt.Errorf("number payment: %w", err)
	}
	return storeReceipt(ctx, tx, rc, now, mail)
}

// nextReceiptNo takes the next number of now's Buddhist year; the counter
// row's lock orders concurrent receipts and a rollback gives it back.
func nextReceiptNo(ctx context.Context, tx pgx.Tx, now time.Time) (year int, seq int64, err error) {
	year = domain.BuddhistYear(domain.DayOf(now))
	if err := tx.QueryRow(ctx, `INSERT INTO receipt_counters (buddhist_year, last) VALUES ($1, 1)
		ON CONFLICT (buddhist_year) DO UPDATE SET last = receipt_counters.last + 1 RETURNING last`, year).Scan(&seq); err != nil {
		return 0, 0, fmt.Errorf("receipt number: %w", err)
	}
	return year, seq, nil
}

// storeReceipt inserts rc and queues its mail, in tx.
func storeReceipt(ctx context.Context, tx pgx.Tx, rc domain.Receipt, now time.Time, mail func(domain.Receipt) domain.Mail) error {
	seller := rc.Seller
	args := append([]any{rc.Number, rc.PaymentID, rc.UserID, rc.IssuedAt, rc.Description, rc.Tier, rc.Period, rc.Method,
		rc.AmountSatang, rc.VATSatang, rc.BaseSatang}, partyArgs(rc.Buyer)...)
	args = append(args, rc.BuyerEmail, seller.Name, seller.TaxID, seller.HeadOffice, seller.Branch, seller.Address, nullIfEmpty(rc.Replaces))
	if _, err := tx.Exec(ctx, `INSERT INTO receipts (number, payment_id, user_id, issued_at, description, tier, period, method,
		amount_satang, vat_satang, base_satang, buyer_kind, buyer_name, buyer_tax_id, buyer_head_office, buyer_branch, buyer_address, buyer_email,
		seller_name, seller_tax_id, seller_head_office, seller_branch, seller_address, replaces)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)`, args...); err != nil {
		return fmt.Errorf("store receipt: %w", err)
	}
	if mail == nil || rc.BuyerEmail == "" {
		return nil
	}
	return queueMail(ctx, tx, mail(rc), now)
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Receipt returns the user's receipt by number (ok = false when it is
// not theirs or does not exist: the caller cannot tell which).
func (r *Repo) Receipt(ctx context.Context, userID, number string) (domain.Receipt, bool, error) {
	rc, err := scanReceipt(r.pool.QueryRow(ctx, `SELECT `+receiptColumns+` FROM receipts r WHERE r.number = $1 AND r.user_id = $2`, number, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Receipt{}, false, nil
	}
	if err != nil {
		return domain.Receipt{}, false, fmt.Errorf("receipt: %w", err)
	}
	return rc, true, nil
}

// receiptColumns read a receipt as r, with its original's day of issue
// (a replacement) and its replacement's number (an original).
const receiptColumns = `r.number, r.payment_id::text, r.user_id, r.issued_at, r.description, r.tier, r.period, r.method,
	r.amount_satang, r.vat_satang, r.base_satang, r.buyer_kind, r.buyer_name, r.buyer_tax_id, r.buyer_head_office, r.buyer_branch,
	r.buyer_address, r.buyer_email, r.seller_name, r.seller_tax_id, r.seller_head_office, r.seller_branch, r.seller_address,
	coalesce(r.replaces, ''), (SELECT o.issued_at FROM receipts o WHERE o.number = r.replaces),
	coalesce((SELECT n.number FROM receipts n WHERE n.replaces = r.number), '')`

func scanReceipt(row pgx.Row) (domain.Receipt, error) {
	var rc domain.Receipt
	var b nullParty
	var originalAt *time.Time
	err := row.Scan(&rc.Number, &rc.PaymentID, &rc.UserID, &rc.IssuedAt, &rc.Description, &rc.Tier, &rc.Period, &rc.Method,
		&rc.AmountSatang, &rc.VATSatang, &rc.BaseSatang, &b.kind, &b.name, &b.taxID, &b.head, &b.branch, &b.address, &rc.BuyerEmail,
		&rc.Seller.Name, &rc.Seller.TaxID, &rc.Seller.HeadOffice, &rc.Seller.Branch, &rc.Seller.Address,
		&rc.Replaces, &originalAt, &rc.ReplacedBy)
	rc.Seller.Kind, rc.Buyer = domain.BuyerCompany, b.party()
	if originalAt != nil {
		rc.ReplacesIssuedAt = *originalAt
	}
	return rc, err
}

// ReissueReceipt implements domain.Store: in one transaction the original is
// locked (two reissues at once: the second finds the first's), checked,
// and its replacement numbered, stored naming buyer and mailed.
func (r *Repo) ReissueReceipt(ctx context.Context, userID, number string, buyer domain.Party, now time.Time, mail func(domain.Receipt) domain.Mail) (domain.Receipt, error) {
	var out domain.Receipt
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		// Lock first, then read in a statement of its own: its snapshot
		// sees a replacement committed while this one waited.
		var locked bool
		err := tx.QueryRow(ctx, `SELECT true FROM receipts WHERE number = $1 AND user_id = $2 FOR UPDATE`, number, userID).Scan(&locked)
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrNoReceipt
		}
		if err != nil {
			return err
		}
		original, err := scanReceipt(tx.QueryRow(ctx, `SELECT `+receiptColumns+` FROM receipts r WHERE r.number = $1`, number))
		if err != nil {
			return err
		}
		if err := original.CheckReissue(); err != nil {
			return err
		}
		year, seq, err := nextReceiptNo(ctx, tx, now)
		if err != nil {
			return err
		}
		out = domain.Replacement(original, domain.ReceiptNumber(year, seq), buyer, now)
		return storeReceipt(ctx, tx, out, now, mail)
	})
	return out, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
