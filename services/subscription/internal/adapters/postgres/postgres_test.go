package postgres_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/pkg/testutil/pgtest"
	"bidradar/services/subscription/internal/adapters/postgres"
	"bidradar/services/subscription/internal/domain"
	"bidradar/services/subscription/subscriptionsvc"
)

func open(t *testing.T) (*postgres.Repo, *pgxpool.Pool) {
	t.Helper()
	pool, err := subscriptionsvc.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return postgres.New(pool), pool
}

var paidAt = time.Date(2026, 11, 25, 10, 0, 0, 0, domain.Bangkok) // B.E. 2569

func mailOf(r domain.Receipt) domain.Mail { return domain.ReceiptMail(r, "https://bidradar.example") }

// pay fulfils one paid event whose decision is a succeeded payment (a
// negative amount makes the receipt's insert fail after the number was
// taken, so the whole transaction rolls back).
func pay(repo *postgres.Repo, i int, user string, amount int64) error {
	ev := domain.Event{ID: fmt.Sprintf("evt_%d", i), Type: domain.EvCheckoutCompleted, Created: paidAt, UserID: user}
	_, _, err := repo.Fulfil(context.Background(), ev, paidAt, func(domain.FulfilState) domain.Change {
		return domain.Change{Payment: &domain.PaymentRecord{UserID: user, Tier: "pro", TierLabel: "มืออาชีพ", Period: "monthly",
			Method: "card", AmountSatang: amount, Succeeded: true, ProviderRef: fmt.Sprintf("cs_%d", i), Email: user + "@example.com"}}
	}, mailOf)
	return err
}

// 20 payments at once, with 5 failing ones among them: receipt numbers
// 1…20 of the year, no gap, no duplicate, one mail each.
func TestReceiptNumbersWithoutGaps(t *testing.T) {
	repo, pool := open(t)
	ctx := context.Background()
	if err := repo.SaveBillingProfile(ctx, "u0", domain.Party{Kind: "company", Name: "บริษัท เอ จำกัด", TaxID: "0105551234567",
		HeadOffice: true, Address: "กรุงเทพฯ"}, paidAt); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 25)
	for i := range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			amount := int64(149000)
			if i%5 == 4 {
				amount = -1
			}
			errs[i] = pay(repo, i, fmt.Sprintf("u%d", i%3), amount)
		}()
	}
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if (err != nil) != (i%5 == 4) {
			t.Fatalf("payment %d: %v", i, err)
		}
		if err != nil {
			failed++
		}
	}
	rows, err := pool.Query(ctx, `SELECT number FROM receipts ORDER BY number`)
	if err != nil {
		t.Fatal(err)
	}
	var numbers []string
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		numbers = append(numbers, n)
	}
	if len(numbers) != 20 || failed != 5 {
		t.Fatalf("%d receipts, %d failed", len(numbers), failed)
	}
	sort.Strings(numbers)
	for i, n := range numbers {
		if want := fmt.Sprintf("RC2569-%06d", i+1); n != want {
			t.Fatalf("receipt %d is %s, want %s (all: %v)", i, n, want, numbers)
		}
	}
	var last, mails, numbered int
	_ = pool.QueryRow(ctx, `SELECT last FROM receipt_counters WHERE buddhist_year = 2569`).Scan(&last)
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM queue_jobs WHERE kind = 'mail' AND payload->>'subject' LIKE 'ใบเสร็จรับเงิน%'`).Scan(&mails)
	_ = pool.QueryRow(ctx, `SELECT count(DISTINCT receipt_number) FROM payments WHERE receipt_number IS NOT NULL`).Scan(&numbered)
	if last != 20 || mails != 20 || numbered != 20 {
		t.Fatalf("counter %d, mails %d, numbered payments %d", last, mails, numbered)
	}

	// u0's receipts carry the profile as it stood; a later change does not
	// rewrite them. Another user's number is not found.
	var mine string
	_ = pool.QueryRow(ctx, `SELECT number FROM receipts WHERE user_id = 'u0' LIMIT 1`).Scan(&mine)
	if err := repo.SaveBillingProfile(ctx, "u0", domain.Party{Kind: "person", Name: "นาย บี", TaxID: "1101700203671", Address: "เชียงใหม่"}, paidAt); err != nil {
		t.Fatal(err)
	}
	r, ok, err := repo.Receipt(ctx, "u0", mine)
	if err != nil || !ok || r.Buyer == nil || r.Buyer.Name != "บริษัท เอ จำกัด" || !r.Buyer.HeadOffice || r.VATSatang != 9748 || r.BaseSatang != 139252 {
		t.Fatalf("u0's receipt: %+v %+v %v", r, r.Buyer, err)
	}
	if _, ok, _ := repo.Receipt(ctx, "u1", mine); ok {
		t.Fatal("u1 reads u0's receipt")
	}
	var u1 string
	_ = pool.QueryRow(ctx, `SELECT number FROM receipts WHERE user_id = 'u1' LIMIT 1`).Scan(&u1)
	if r, ok, _ := repo.Receipt(ctx, "u1", u1); !ok || r.Buyer != nil || r.BuyerEmail != "u1@example.com" {
		t.Fatalf("u1 without a profile: %+v", r)
	}
}

// A receipt keeps the seller it was issued by: a later change of the
// company's details does not rewrite documents already issued.
func TestReceiptKeepsItsSeller(t *testing.T) {
	repo, pool := open(t)
	ctx := context.Background()
	if err := pay(repo, 1, "u1", 49000); err != nil {
		t.Fatal(err)
	}
	moved := domain.Party{Kind: domain.BuyerCompany, Name: "บริษัท ย้ายแล้ว จำกัด", TaxID: "0105551234567", Branch: "00002", Address: "เชียงใหม่"}
	repo.WithSeller(moved)
	if err := pay(repo, 2, "u1", 49000); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT number FROM receipts ORDER BY number`)
	if err != nil {
		t.Fatal(err)
	}
	numbers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(numbers) != 2 {
		t.Fatalf("receipts %v %v", numbers, err)
	}
	first, _, _ := repo.Receipt(ctx, "u1", numbers[0])
	second, _, _ := repo.Receipt(ctx, "u1", numbers[1])
	if first.Seller.Name != domain.SampleSeller.Name || first.Seller.TaxID != domain.SampleSeller.TaxID || !first.Seller.HeadOffice {
		t.Fatalf("first receipt's seller %+v", first.Seller)
	}
	if second.Seller.Name != moved.Name || second.Seller.Branch != "00002" || second.Seller.HeadOffice {
		t.Fatalf("second receipt's seller %+v", second.Seller)
	}
}

// A new Buddhist year starts again at 1.
func TestReceiptNumbersRestartEachYear(t *testing.T) {
	repo, _ := open(t)
	if err := pay(repo, 1, "u1", 49000); err != nil {
		t.Fatal(err)
	}
	ev := domain.Event{ID: "evt_ny", Type: domain.EvCheckoutCompleted, UserID: "u1"}
	newYear := time.Date(2027, 1, 1, 0, 5, 0, 0, domain.Bangkok) // 31 Dec 2026 in UTC
	if _, _, err := repo.Fulfil(context.Background(), ev, newYear, func(domain.FulfilState) domain.Change {
		return domain.Change{Payment: &domain.PaymentRecord{UserID: "u1", Tier: "pro", Period: "monthly", Method: "card",
			AmountSatang: 149000, Succeeded: true, ProviderRef: "cs_ny"}}
	}, mailOf); err != nil {
		t.Fatal(err)
	}
	ps, err := repo.Payments(context.Background(), "u1")
	if err != nil || len(ps) != 2 || ps[0].ReceiptNumber != "RC2570-000001" || ps[1].ReceiptNumber != "RC2569-000001" {
		t.Fatalf("%+v %v", ps, err)
	}
}

// 50 consumptions at once never pass the limit.
func TestConcurrentQuotaNeverExceedsTheLimit(t *testing.T) {
	repo, _ := open(t)
	windows, err := domain.Windows(domain.KindSearchCombination, domain.Limits{SearchCombinationDay: 10, SearchCombinationMonth: 200}, paidAt)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := repo.Consume(context.Background(), "u1", domain.KindSearchCombination, windows, 1)
			if err != nil {
				t.Error(err)
				return
			}
			if res.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	used, err := repo.Usage(context.Background(), "u1", windows[0].Start, windows[1].Start)
	if err != nil {
		t.Fatal(err)
	}
	if allowed != 10 || used[domain.KindSearchCombination+"/day"] != 10 || used[domain.KindSearchCombination+"/month"] != 10 {
		t.Fatalf("allowed %d, used %v", allowed, used)
	}
}
