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
	year := domain.BuddhistYear(domain.DayOf(now))
	var seq int64
	if err := tx.QueryRow(ctx, `INSERT INTO receipt_counters (buddhist_year, last) VALUES ($1, 1)
		ON CONFLICT (buddhist_year) DO UPDATE SET last = receipt_counters.last + 1 RETURNING last`, year).Scan(&seq); err != nil {
		return fmt.Errorf("receipt number: %w", err)
	}
	var buyer *domain.Party
	switch b, err := profileIn(ctx, tx, p.UserID); {
	case err == nil:
		buyer = &b
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	rc := domain.NewReceipt(domain.ReceiptNumber(year, seq), paymentID, p, seller, buyer, now)
	if _, err := tx.Exec(ctx, `UPDATE payments SET receipt_no = $2, receipt_number = $3 WHERE id = $1`, paymentID, seq, rc.Number); err != nil {
		return fmt.Errorf("number payment: %w", err)
	}
	var b domain.Party
	if buyer != nil {
		b = *buyer
	}
	if _, err := tx.Exec(ctx, `INSERT INTO receipts (number, payment_id, user_id, issued_at, description, tier, period, method,
		amount_satang, vat_satang, base_satang, buyer_kind, buyer_name, buyer_tax_id, buyer_head_office, buyer_branch, buyer_address, buyer_email,
		seller_name, seller_tax_id, seller_head_office, seller_branch, seller_address)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, nullif($12, ''), nullif($13, ''), nullif($14, ''), $15, $16, nullif($17, ''), $18,
		$19, $20, $21, $22, $23)`,
		rc.Number, paymentID, rc.UserID, rc.IssuedAt, rc.Description, rc.Tier, rc.Period, rc.Method,
		rc.AmountSatang, rc.VATSatang, rc.BaseSatang, b.Kind, b.Name, b.TaxID, buyer != nil && b.HeadOffice, b.Branch, b.Address, rc.BuyerEmail,
		seller.Name, seller.TaxID, seller.HeadOffice, seller.Branch, seller.Address); err != nil {
		return fmt.Errorf("store receipt: %w", err)
	}
	if mail == nil || rc.BuyerEmail == "" {
		return nil
	}
	return queueMail(ctx, tx, mail(rc), now)
}

// Receipt returns the user's receipt by number (ok = false when it is
// not theirs or does not exist: the caller cannot tell which).
func (r *Repo) Receipt(ctx context.Context, userID, number string) (domain.Receipt, bool, error) {
	var rc domain.Receipt
	var kind, name, taxID, branch, address *string
	var head *bool
	err := r.pool.QueryRow(ctx, `SELECT number, payment_id::text, user_id, issued_at, description, tier, period, method,
		amount_satang, vat_satang, base_satang, buyer_kind, buyer_name, buyer_tax_id, buyer_head_office, buyer_branch, buyer_address, buyer_email,
		seller_name, seller_tax_id, seller_head_office, seller_branch, seller_address
		FROM receipts WHERE number = $1 AND user_id = $2`, number, userID).
		Scan(&rc.Number, &rc.PaymentID, &rc.UserID, &rc.IssuedAt, &rc.Description, &rc.Tier, &rc.Period, &rc.Method,
			&rc.AmountSatang, &rc.VATSatang, &rc.BaseSatang, &kind, &name, &taxID, &head, &branch, &address, &rc.BuyerEmail,
			&rc.Seller.Name, &rc.Seller.TaxID, &rc.Seller.HeadOffice, &rc.Seller.Branch, &rc.Seller.Address)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Receipt{}, false, nil
	}
	if err != nil {
		return domain.Receipt{}, false, fmt.Errorf("receipt: %w", err)
	}
	rc.Seller.Kind = domain.BuyerCompany
	if kind != nil {
		rc.Buyer = &domain.Party{Kind: *kind, Name: deref(name), TaxID: deref(taxID), HeadOffice: head != nil && *head, Branch: deref(branch), Address: deref(address)}
	}
	return rc, true, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
