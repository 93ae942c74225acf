package domain_test

import (
	"strings"
	"testing"

	"bidradar/services/subscription/internal/domain"
)

func TestTaxIDCheckDigit(t *testing.T) {
	for _, c := range []struct {
		id   string
		want error
	}{
		{"0105559123454", nil},
		{"0105551234567", nil},
		{"3100101234566", nil},
		{"1101700203671", nil},
		{"0994000165510", nil},
		{"0105559123455", domain.ErrTaxIDCheck},
		{"1101700203670", domain.ErrTaxIDCheck},
		{"3100101234560", domain.ErrTaxIDCheck},
		{"010555912345", domain.ErrTaxIDDigits},
		{"01055591234541", domain.ErrTaxIDDigits},
		{"01055591234a4", domain.ErrTaxIDDigits},
		{"", domain.ErrTaxIDDigits},
		{"๐๑๐๕๕๕๙๑๒๓๔๕๔", domain.ErrTaxIDDigits}, // Thai digits are not accepted
	} {
		if err := domain.ValidateTaxID(c.id); err != c.want {
			t.Errorf("%q: %v, want %v", c.id, err, c.want)
		}
	}
	if got := domain.NormalizeTaxID(" 0-1055-59123-45-4 "); got != "0105559123454" {
		t.Errorf("normalize: %q", got)
	}
}

func TestThaiAmountWords(t *testing.T) {
	for _, c := range []struct {
		satang int64
		want   string
	}{
		{0, "ศูนย์บาทถ้วน"},
		{1, "หนึ่งสตางค์"},
		{10, "สิบสตางค์"},
		{11, "สิบเอ็ดสตางค์"},
		{21, "ยี่สิบเอ็ดสตางค์"},
		{100, "หนึ่งบาทถ้วน"},
		{1000, "สิบบาทถ้วน"},
		{1100, "สิบเอ็ดบาทถ้วน"},
		{2100, "ยี่สิบเอ็ดบาทถ้วน"},
		{2000, "ยี่สิบบาทถ้วน"},
		{10100, "หนึ่งร้อยเอ็ดบาทถ้วน"},
		{11100, "หนึ่งร้อยสิบเอ็ดบาทถ้วน"},
		{107050, "หนึ่งพันเจ็ดสิบบาทห้าสิบสตางค์"},
		{49000, "สี่ร้อยเก้าสิบบาทถ้วน"},
		{1490000, "หนึ่งหมื่นสี่พันเก้าร้อยบาทถ้วน"},
		{4990000, "สี่หมื่นเก้าพันเก้าร้อยบาทถ้วน"},
		{100000000, "หนึ่งล้านบาทถ้วน"},
		{100000100, "หนึ่งล้านเอ็ดบาทถ้วน"},
		{100000101, "หนึ่งล้านเอ็ดบาทหนึ่งสตางค์"},
		{110000000, "หนึ่งล้านหนึ่งแสนบาทถ้วน"},
		{1100000000, "สิบเอ็ดล้านบาทถ้วน"},
		{2100000000, "ยี่สิบเอ็ดล้านบาทถ้วน"},
		{10100000000, "หนึ่งร้อยเอ็ดล้านบาทถ้วน"},
		{100000000000000, "หนึ่งล้านล้านบาทถ้วน"},
		{123456789, "หนึ่งล้านสองแสนสามหมื่นสี่พันห้าร้อยหกสิบเจ็ดบาทแปดสิบเก้าสตางค์"},
	} {
		if got := domain.BahtText(c.satang); got != c.want {
			t.Errorf("%d satang: %s, want %s", c.satang, got, c.want)
		}
	}
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "ศูนย์"}, {1, "หนึ่ง"}, {11, "สิบเอ็ด"}, {21, "ยี่สิบเอ็ด"}, {101, "หนึ่งร้อยเอ็ด"},
		{1000000, "หนึ่งล้าน"}, {1000001, "หนึ่งล้านเอ็ด"}, {1000010, "หนึ่งล้านสิบ"}, {1000011, "หนึ่งล้านสิบเอ็ด"},
	} {
		if got := domain.ThaiNumber(c.n); got != c.want {
			t.Errorf("%d: %s, want %s", c.n, got, c.want)
		}
	}
}

func TestVATIncluded(t *testing.T) {
	for _, c := range []struct{ amount, vat, base int64 }{
		{107000, 7000, 100000},
		{107050, 7003, 100047}, // 7,003.27 → 7,003
		{49000, 3206, 45794},   // 3,205.61 → 3,206
		{149000, 9748, 139252}, // 9,747.66 → 9,748
		{1490000, 97477, 1392523},
		{4990000, 326449, 4663551},
		{1, 0, 1},
		{8, 1, 7}, // 0.523 → 1
		{0, 0, 0},
		{2293, 150, 2143}, // 150.01 → 150
	} {
		vat, base := domain.VAT(c.amount)
		if vat != c.vat || base != c.base || vat+base != c.amount {
			t.Errorf("%d: vat %d base %d, want %d %d", c.amount, vat, base, c.vat, c.base)
		}
	}
}

func TestBillingProfile(t *testing.T) {
	ok := domain.Party{Kind: "company", Name: " บริษัท ตัวอย่าง จำกัด ", TaxID: "0105551234567", HeadOffice: false, Branch: "00012", Address: "กรุงเทพฯ"}
	for _, c := range []struct {
		name string
		edit func(*domain.Party)
		want error
	}{
		{"branch", func(*domain.Party) {}, nil},
		{"head office", func(p *domain.Party) { p.HeadOffice, p.Branch = true, "" }, nil},
		{"branch 00000 is the head office", func(p *domain.Party) { p.Branch = "00000" }, nil},
		{"person", func(p *domain.Party) { p.Kind, p.Branch = "person", "" }, nil},
		{"bad kind", func(p *domain.Party) { p.Kind = "ngo" }, domain.ErrProfileKind},
		{"no name", func(p *domain.Party) { p.Name = "  " }, domain.ErrProfileName},
		{"bad check digit", func(p *domain.Party) { p.TaxID = "0105551234568" }, domain.ErrTaxIDCheck},
		{"short tax id", func(p *domain.Party) { p.TaxID = "123" }, domain.ErrTaxIDDigits},
		{"branch of 4", func(p *domain.Party) { p.Branch = "0012" }, domain.ErrProfileBranch},
		{"branch letters", func(p *domain.Party) { p.Branch = "0001a" }, domain.ErrProfileBranch},
		{"no address", func(p *domain.Party) { p.Address = "" }, domain.ErrProfileAddress},
		{"address on two lines", func(p *domain.Party) { p.Address = "99/1 ถนนสีลม\r\nกรุงเทพฯ" }, nil},
		{"right-to-left override in the name", func(p *domain.Party) { p.Name = "บริษัท \u202eดำกัจ" }, domain.ErrProfileNameChars},
		{"isolate in the name", func(p *domain.Party) { p.Name = "ABC\u2067Co\u2069" }, domain.ErrProfileNameChars},
		{"newline in the name", func(p *domain.Party) { p.Name = "บริษัท\nจำกัด" }, domain.ErrProfileNameChars},
		{"escape in the name", func(p *domain.Party) { p.Name = "a\x1b[2Jb" }, domain.ErrProfileNameChars},
		{"C1 control in the address", func(p *domain.Party) { p.Address = "กรุงเทพฯ\u0085" + "10500" }, domain.ErrProfileAddressChars},
		{"override in the address", func(p *domain.Party) { p.Address = "99 \u202dถนน" }, domain.ErrProfileAddressChars},
		{"NUL in the address", func(p *domain.Party) { p.Address = "99\x00" + "ถนน" }, domain.ErrProfileAddressChars},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := ok
			c.edit(&p)
			got, err := domain.NormalizeProfile(p)
			if err != c.want {
				t.Fatalf("%v, want %v", err, c.want)
			}
			if err == nil && got.Name != "บริษัท ตัวอย่าง จำกัด" {
				t.Fatalf("not trimmed: %q", got.Name)
			}
		})
	}
	p, _ := domain.NormalizeProfile(domain.Party{Kind: "company", Name: "x", TaxID: "0105551234567", Branch: "00000", Address: "y"})
	if !p.HeadOffice || p.BranchLabel() != "สำนักงานใหญ่" {
		t.Fatalf("00000: %+v", p)
	}
}

func TestReceiptNumberAndMail(t *testing.T) {
	if got := domain.ReceiptNumber(2569, 1); got != "RC2569-000001" {
		t.Fatal(got)
	}
	r := domain.NewReceipt("RC2569-000042", "p1", domain.PaymentRecord{UserID: "u1", Tier: "pro", TierLabel: "มืออาชีพ",
		Period: "monthly", Method: "card", AmountSatang: 149000, Email: "ann@example.com"}, domain.SampleSeller, nil, now)
	if r.VATSatang != 9748 || r.BaseSatang != 139252 || r.Description != "แพ็กเกจมืออาชีพ รายเดือน (30 วัน)" {
		t.Fatalf("%+v", r)
	}
	m := domain.ReceiptMail(r, "https://bidradar.example/")
	for _, want := range []string{"RC2569-000042", "25 พฤศจิกายน 2569", "1,490.00", "97.48", "1,392.52",
		"หนึ่งพันสี่ร้อยเก้าสิบบาทถ้วน", "https://bidradar.example/receipt/RC2569-000042", domain.SampleSeller.TaxID} {
		if !contains(m.Text, want) {
			t.Errorf("mail text lacks %q:\n%s", want, m.Text)
		}
	}
	if m.To != "ann@example.com" || !contains(m.HTML, "หนึ่งพันสี่ร้อยเก้าสิบบาทถ้วน") {
		t.Fatalf("mail %q", m.To)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// A replacement tax invoice keeps the sale, names the buyer and cites the
// original; it and its original cannot be reissued again.
func TestReplacementTaxInvoice(t *testing.T) {
	orig := domain.NewReceipt("RC2569-000042", "p1", domain.PaymentRecord{UserID: "u1", Tier: "pro", TierLabel: "มืออาชีพ",
		Period: "monthly", Method: "card", AmountSatang: 149000, Email: "ann@example.com"}, domain.SampleSeller, nil, now)
	if !orig.CanReissue() || orig.CheckReissue() != nil || orig.Title() != "ใบเสร็จรับเงิน / ใบกำกับภาษี" {
		t.Fatalf("original: %+v", orig)
	}
	buyer := domain.Party{Kind: "company", Name: "บริษัท ทดสอบ จำกัด", TaxID: "0105551234567", HeadOffice: true, Address: "กรุงเทพฯ"}
	rep := domain.Replacement(orig, "RC2570-000007", buyer, now.AddDate(0, 2, 0))
	if rep.Replaces != orig.Number || rep.Buyer == nil || rep.AmountSatang != orig.AmountSatang || rep.VATSatang != orig.VATSatang ||
		rep.PaymentID != orig.PaymentID || rep.CanReissue() || rep.CheckReissue() != domain.ErrReceiptIsReplacement {
		t.Fatalf("replacement: %+v", rep)
	}
	m := domain.ReceiptMail(rep, "https://bidradar.example")
	for _, want := range []string{"ใบเสร็จรับเงิน / ใบกำกับภาษี (ใบแทน)", "ออกแทนฉบับเดิมเลขที่ RC2569-000042 ลงวันที่ 25 พฤศจิกายน 2569",
		"RC2570-000007", "25 มกราคม 2570", "บริษัท ทดสอบ จำกัด"} {
		if !contains(m.Text, want) || !contains(m.HTML, want) && want != "RC2570-000007" {
			t.Errorf("replacement mail lacks %q:\n%s", want, m.Text)
		}
	}
	orig.ReplacedBy = rep.Number
	if err := orig.CheckReissue(); err == nil || !contains(err.Error(), rep.Number) {
		t.Fatalf("second reissue: %v", err)
	}
	orig.ReplacedBy, orig.Buyer = "", &buyer
	if orig.CheckReissue() != domain.ErrReceiptHasBuyer {
		t.Fatal("a receipt with a buyer was reissuable")
	}
}
