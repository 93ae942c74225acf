package postgres_test

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"bidradar/pkg/thaitext"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/demo"
	"bidradar/services/projects/internal/domain"
)

// The hand-written binary COPY rows must store exactly what pgx's generic
// encoding of the same values stores.
func TestBinaryCopyMatchesPgx(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	g := demo.New(11, time.Date(2026, 9, 30, 0, 0, 0, 0, domain.Bangkok))
	var ps []domain.Project
	for i := 0; i < 300; i++ {
		ps = append(ps, g.Project(i))
	}
	money := func(v int64) *domain.Money { m := domain.Money(v); return &m }
	edge := []*domain.Money{nil, money(0), money(5), money(50), money(-1), money(-123456789), money(100), money(1000000),
		money(99999999999999_99), money(-99999999999999_99), money(10000_00), money(12345678_90)}
	for i, m := range edge {
		p := ps[i]
		p.Budget, p.ReferencePrice, p.AgreedPrice, p.ContractValue = m, m, m, m
		if i%2 == 0 {
			p.Announcements = nil
			p.LastAnnounced = time.Time{}
			p.ContractSigned, p.ContractEnd = nil, nil
		} else {
			d1 := time.Date(1999, 12, 31, 0, 0, 0, 0, domain.Bangkok)
			d2 := time.Date(2570, 2, 28, 0, 0, 0, 0, domain.Bangkok)
			p.ContractSigned, p.ContractEnd = &d1, &d2
			p.SubmissionDue, p.HearingDue = &d2, &d1
		}
		p.WinnerTaxIDBad = i%3 == 0
		p.Name, p.SearchText = "", ""
		if i == 1 {
			p.Name, p.SearchText = "ก", "ก"
		}
		ps[i] = p
	}
	for _, q := range []string{"CREATE TABLE via_pgx (LIKE projects)", "CREATE TABLE via_enc (LIKE projects)"} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rows := make([][]any, len(ps))
	for i := range ps {
		rows[i] = pgxRow(&ps[i])
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"via_pgx"}, postgres.ColumnNames, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return postgres.CopyProjects(ctx, tx.Conn(), "via_enc", ps) })
	if err != nil {
		t.Fatal(err)
	}
	dump := func(table string) []string {
		rows, err := pool.Query(ctx, "SELECT row_to_json(t)::text FROM "+table+" t ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := dump("via_pgx"), dump("via_enc")
	if len(a) != len(ps) || !slices.Equal(a, b) {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("row %d differs:\npgx: %s\nenc: %s", i, a[i], b[i])
			}
		}
		t.Fatalf("%d rows via pgx, %d via the encoder", len(a), len(b))
	}
}

// pgxRow is the reference: the row's values as Go types, encoded by pgx.
func pgxRow(p *domain.Project) []any {
	num := func(m *domain.Money) pgtype.Numeric {
		if m == nil {
			return pgtype.Numeric{}
		}
		return pgtype.Numeric{Int: big.NewInt(int64(*m)), Exp: -2, Valid: true}
	}
	date := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return *t
	}
	types := make([]string, 0, len(p.Announcements))
	for _, a := range p.Announcements {
		types = append(types, string(a.Type))
	}
	steps, _ := json.Marshal(p.Announcements)
	announced := domain.NoDate
	if !p.LastAnnounced.IsZero() {
		announced = domain.DateKey(p.LastAnnounced)
	}
	return []any{p.ID, p.Name, p.SearchText, thaitext.Trigrams(p.SearchText), p.AgencyCode, p.AgencyName, p.SubAgencyCode, p.SubAgencyName,
		p.MinistryCode, p.MinistryName, p.ProvinceCode, p.District, p.Subdistrict, p.MethodCode, p.MethodName,
		p.WorkTypeCode, p.WorkTypeName, p.StrategyCode, num(p.Budget), num(p.ReferencePrice), num(p.AgreedPrice), int32(p.BudgetYear),
		string(p.Status), p.RawStatus, steps, types, announced, string(p.LastAnnounceTyp), p.WinnerTaxID,
		p.WinnerTaxIDBad, p.WinnerName, p.ContractNo, date(p.ContractSigned), date(p.ContractEnd), num(p.ContractValue),
		p.ContractStatus, p.Location, p.Source, date(p.SubmissionDue), date(p.HearingDue), p.FirstSeen, p.LastSeen}
}
