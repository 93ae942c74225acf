package domain

import (
	"fmt"
	"html"
	"strings"
	"time"
	"unicode/utf8"

	"bidradar/pkg/apperr"
	"bidradar/pkg/freetext"
)

// Receipts / tax invoices (ใบเสร็จรับเงิน / ใบกำกับภาษี), issue 10. Prices
// include VAT; every successful payment gets the next number of its
// Buddhist year, without gaps.

// VATRatePercent is Thailand's VAT rate.
const VATRatePercent = 7

// SampleSeller is the issuer printed on receipts of a development stack
// (SELLER_* unset); production must name the real company (see
// subscriptionsvc). Each receipt keeps the seller as it stood when issued.
var SampleSeller = Party{
	Kind:       BuyerCompany,
	Name:       "บริษัท บิดเรดาร์ (ประเทศไทย) จำกัด",
	TaxID:      "0105559123454",
	HeadOffice: true,
	Address:    "เลขที่ 999 อาคารบิดเรดาร์ ชั้น 10 ถนนพระรามที่ 4 แขวงสีลม เขตบางรัก กรุงเทพมหานคร 10500",
}

// Buyer kinds.
const (
	BuyerCompany = "company"
	BuyerPerson  = "person"
)

// Party is a seller or buyer block: a company (head office or a 5-digit
// branch) or a person.
type Party struct {
	Kind       string
	Name       string
	TaxID      string
	HeadOffice bool
	Branch     string // 5 digits when not the head office
	Address    string
}

// BranchLabel is how the party's office is printed.
func (p Party) BranchLabel() string {
	switch {
	case p.Kind != BuyerCompany:
		return ""
	case p.HeadOffice:
		return "สำนักงานใหญ่"
	}
	return "สาขาที่ " + p.Branch
}

// Errors of the billing profile (Thai: shown as they are).
var (
	ErrProfileKind    = apperr.New(apperr.InvalidArgument, "billing-kind", "ประเภทผู้ซื้อต้องเป็นนิติบุคคล (company) หรือบุคคลธรรมดา (person)")
	ErrProfileName    = apperr.New(apperr.InvalidArgument, "billing-name", "กรุณากรอกชื่อบริษัทหรือชื่อ-นามสกุล (ไม่เกิน 200 ตัวอักษร)")
	ErrTaxIDDigits    = apperr.New(apperr.InvalidArgument, "billing-tax-id", "เลขประจำตัวผู้เสียภาษีต้องเป็นตัวเลข 13 หลัก")
	ErrTaxIDCheck     = apperr.New(apperr.InvalidArgument, "billing-tax-id-check", "เลขประจำตัวผู้เสียภาษีไม่ถูกต้อง (เลขตรวจสอบหลักที่ 13 ไม่ตรง)")
	ErrProfileBranch  = apperr.New(apperr.InvalidArgument, "billing-branch", "เลขที่สาขาต้องเป็นตัวเลข 5 หลัก หรือเลือกสำนักงานใหญ่")
	ErrProfileAddress = apperr.New(apperr.InvalidArgument, "billing-address", "กรุณากรอกที่อยู่ (ไม่เกิน 500 ตัวอักษร)")
	// Control characters and bidirectional overrides could make a tax
	// invoice read differently from what is stored.
	ErrProfileNameChars    = apperr.New(apperr.InvalidArgument, "billing-name-chars", "ชื่อมีอักขระควบคุมหรืออักขระกำหนดทิศทางข้อความที่ใช้ไม่ได้ กรุณาพิมพ์ใหม่")
	ErrProfileAddressChars = apperr.New(apperr.InvalidArgument, "billing-address-chars", "ที่อยู่มีอักขระควบคุมหรืออักขระกำหนดทิศทางข้อความที่ใช้ไม่ได้ กรุณาพิมพ์ใหม่")
	ErrNoReceipt           = apperr.New(apperr.NotFound, "receipt-not-found", "ไม่พบใบเสร็จรับเงินนี้")
	ErrBuyerRequired       = apperr.New(apperr.InvalidArgument, "billing-profile-required", "กรุณากรอกข้อมูลผู้ซื้อ (ชื่อ เลขประจำตัวผู้เสียภาษี สำนักงานใหญ่หรือสาขา และที่อยู่) เพื่อออกใบกำกับภาษี")
	// A receipt is reissued as a replacement tax invoice at most once,
	// only when it named no buyer, and a replacement is not reissued.
	ErrReceiptReissuedBase  = apperr.New(apperr.AlreadyExists, "receipt-reissued", "ใบเสร็จนี้ออกใบกำกับภาษีฉบับแทนไปแล้ว ออกได้ครั้งเดียว")
	ErrReceiptHasBuyer      = apperr.New(apperr.AlreadyExists, "receipt-has-buyer", "ใบเสร็จนี้ระบุชื่อผู้ซื้อแล้ว จึงออกใบกำกับภาษีฉบับแทนไม่ได้")
	ErrReceiptIsReplacement = apperr.New(apperr.AlreadyExists, "receipt-is-replacement", "ใบนี้เป็นใบกำกับภาษีฉบับแทนอยู่แล้ว ออกแทนซ้ำไม่ได้")
)

// ReceiptReissued is the 409 of a second reissue: it names the replacement.
func ReceiptReissued(replacement string) error {
	e := *ErrReceiptReissuedBase
	e.Message = fmt.Sprintf("ใบเสร็จนี้ออกใบกำกับภาษีฉบับแทนไปแล้ว (เลขที่ %s) ออกได้ครั้งเดียว", replacement)
	return &e
}

// TaxIDCheckDigit is the 13th digit of a Thai tax id from its first 12:
// (11 − Σ dᵢ × (13 − i) mod 11) mod 10, i = 0…11.
func TaxIDCheckDigit(first12 string) int {
	sum := 0
	for i := range 12 {
		sum += int(first12[i]-'0') * (13 - i)
	}
	return (11 - sum%11) % 10
}

// NormalizeTaxID drops the spaces and dashes people type between groups.
func NormalizeTaxID(s string) string {
	return strings.NewReplacer(" ", "", "-", "").Replace(strings.TrimSpace(s))
}

// ValidateTaxID checks 13 digits and the check digit.
func ValidateTaxID(id string) error {
	if len(id) != 13 || strings.Trim(id, "0123456789") != "" {
		return ErrTaxIDDigits
	}
	if TaxIDCheckDigit(id[:12]) != int(id[12]-'0') {
		return ErrTaxIDCheck
	}
	return nil
}

// NormalizeProfile trims and validates a billing profile: the name is one
// line, the address may have several (CRLF read as a newline); neither may
// hold control characters or bidirectional overrides (pkg/freetext).
func NormalizeProfile(p Party) (Party, error) {
	p.Address = strings.ReplaceAll(p.Address, "\r\n", "\n")
	p.Name, p.Address, p.Branch = strings.TrimSpace(p.Name), strings.TrimSpace(p.Address), strings.TrimSpace(p.Branch)
	p.TaxID = NormalizeTaxID(p.TaxID)
	if p.Kind != BuyerCompany && p.Kind != BuyerPerson {
		return p, ErrProfileKind
	}
	if p.Name == "" || utf8.RuneCountInString(p.Name) > 200 {
		return p, ErrProfileName
	}
	if !freetext.Valid(p.Name, freetext.SingleLine) {
		return p, ErrProfileNameChars
	}
	if !freetext.Valid(p.Address, freetext.MultiLine) {
		return p, ErrProfileAddressChars
	}
	if err := ValidateTaxID(p.TaxID); err != nil {
		return p, err
	}
	switch {
	case p.Kind == BuyerPerson:
		p.HeadOffice, p.Branch = false, ""
	case p.HeadOffice:
		p.Branch = ""
	case len(p.Branch) != 5 || strings.Trim(p.Branch, "0123456789") != "":
		return p, ErrProfileBranch
	case p.Branch == "00000": // branch 00000 is the head office
		p.HeadOffice, p.Branch = true, ""
	}
	if p.Address == "" || utf8.RuneCountInString(p.Address) > 500 {
		return p, ErrProfileAddress
	}
	return p, nil
}

// VAT splits a VAT-inclusive amount: vat = round(amount × 7 / 107), half
// up, in satang; the base is the rest.
func VAT(amountSatang int64) (vat, base int64) {
	vat = (amountSatang*VATRatePercent*2 + 100 + VATRatePercent) / (2 * (100 + VATRatePercent))
	return vat, amountSatang - vat
}

// ReceiptNumber is the document number: RC, the Buddhist year, a dash and
// the year's sequence on six digits (RC2569-000001).
func ReceiptNumber(buddhistYear int, seq int64) string {
	return fmt.Sprintf("RC%d-%06d", buddhistYear, seq)
}

var (
	thaiDigits = [...]string{"ศูนย์", "หนึ่ง", "สอง", "สาม", "สี่", "ห้า", "หก", "เจ็ด", "แปด", "เก้า"}
	thaiPlaces = [...]string{"", "สิบ", "ร้อย", "พัน", "หมื่น", "แสน"}
)

// ThaiNumber writes a non-negative integer in Thai words: 21 → ยี่สิบเอ็ด,
// 101 → หนึ่งร้อยเอ็ด, 1,000,001 → หนึ่งล้านเอ็ด.
func ThaiNumber(n int64) string {
	if n <= 0 {
		return thaiDigits[0]
	}
	return thaiWords(n, false)
}

// thaiWords writes n > 0 in groups of millions; higher says digits stand
// above n, so a final 1 is read เอ็ด.
func thaiWords(n int64, higher bool) string {
	if n >= 1_000_000 {
		s := thaiWords(n/1_000_000, higher) + "ล้าน"
		if lo := n % 1_000_000; lo > 0 {
			s += thaiGroup(lo, true)
		}
		return s
	}
	return thaiGroup(n, higher)
}

// thaiGroup writes 0 < n < 1,000,000.
func thaiGroup(n int64, higher bool) string {
	var b strings.Builder
	pow := int64(100_000)
	for p := 5; p >= 0; p, pow = p-1, pow/10 {
		d := (n / pow) % 10
		switch {
		case d == 0:
		case p == 1 && d == 1:
			b.WriteString("สิบ")
		case p == 1 && d == 2:
			b.WriteString("ยี่สิบ")
		case p == 0 && d == 1 && (higher || n >= 10):
			b.WriteString("เอ็ด")
		default:
			b.WriteString(thaiDigits[d] + thaiPlaces[p])
		}
	}
	return b.String()
}

// BahtText writes an amount in Thai words as receipts do: 1,070.50 →
// หนึ่งพันเจ็ดสิบบาทห้าสิบสตางค์, 21.00 → ยี่สิบเอ็ดบาทถ้วน, 0.01 → หนึ่งสตางค์.
func BahtText(satang int64) string {
	if satang < 0 {
		return "ลบ" + BahtText(-satang)
	}
	baht, st := satang/100, satang%100
	switch {
	case st == 0:
		return ThaiNumber(baht) + "บาทถ้วน"
	case baht == 0:
		return thaiGroup(st, false) + "สตางค์"
	}
	return ThaiNumber(baht) + "บาท" + thaiGroup(st, false) + "สตางค์"
}

// Receipt is an issued receipt / tax invoice: what was sold, the amounts and
// the buyer as the billing profile stood at payment time.
type Receipt struct {
	Number       string
	PaymentID    string
	UserID       string
	IssuedAt     time.Time
	Description  string
	Tier, Period string
	Method       string
	AmountSatang int64
	VATSatang    int64
	BaseSatang   int64
	Seller       Party
	Buyer        *Party // nil: no billing profile (a receipt for the e-mail's owner)
	BuyerEmail   string

	// A replacement tax invoice cites its original; an original knows its
	// replacement, if it has one.
	Replaces         string
	ReplacesIssuedAt time.Time
	ReplacedBy       string
}

// CanReissue: issued without a buyer and never reissued, it may be
// reissued once as a replacement tax invoice naming one.
func (r Receipt) CanReissue() bool { return r.Buyer == nil && r.Replaces == "" && r.ReplacedBy == "" }

// CheckReissue is why r cannot be reissued (nil when it can).
func (r Receipt) CheckReissue() error {
	switch {
	case r.Replaces != "":
		return ErrReceiptIsReplacement
	case r.ReplacedBy != "":
		return ReceiptReissued(r.ReplacedBy)
	case r.Buyer != nil:
		return ErrReceiptHasBuyer
	}
	return nil
}

// Replacement is the replacement tax invoice of original, numbered number
// and issued at: the same sale, amounts and seller, now naming buyer, and
// citing the original's number and day.
func Replacement(original Receipt, number string, buyer Party, at time.Time) Receipt {
	r := original
	r.Number, r.IssuedAt, r.Buyer = number, at, &buyer
	r.Replaces, r.ReplacesIssuedAt, r.ReplacedBy = original.Number, original.IssuedAt, ""
	return r
}

// Title is the document's name; a replacement says so.
func (r Receipt) Title() string {
	if r.Replaces != "" {
		return "ใบเสร็จรับเงิน / ใบกำกับภาษี (ใบแทน)"
	}
	return "ใบเสร็จรับเงิน / ใบกำกับภาษี"
}

// ReplacesLine cites the original on a replacement ("" on an original).
func (r Receipt) ReplacesLine() string {
	if r.Replaces == "" {
		return ""
	}
	return fmt.Sprintf("ออกแทนฉบับเดิมเลขที่ %s ลงวันที่ %s", r.Replaces, ThaiDate(DayOf(r.ReplacesIssuedAt)))
}

// IssuedDay is the Bangkok day of issue.
func (r Receipt) IssuedDay() time.Time { return DayOf(r.IssuedAt) }

// Describe is the line sold: แพ็กเกจมืออาชีพ รายเดือน (30 วัน).
func Describe(tierLabel, period string) string {
	if period == PeriodYearly {
		return fmt.Sprintf("แพ็กเกจ%s รายปี (%d วัน)", tierLabel, Days(period))
	}
	return fmt.Sprintf("แพ็กเกจ%s รายเดือน (%d วัน)", tierLabel, Days(period))
}

// NewReceipt makes the receipt of a successful payment.
func NewReceipt(number, paymentID string, p PaymentRecord, seller Party, buyer *Party, at time.Time) Receipt {
	vat, base := VAT(p.AmountSatang)
	return Receipt{Number: number, PaymentID: paymentID, UserID: p.UserID, IssuedAt: at,
		Description: Describe(p.TierLabel, p.Period), Tier: p.Tier, Period: p.Period, Method: p.Method,
		AmountSatang: p.AmountSatang, VATSatang: vat, BaseSatang: base, Seller: seller, Buyer: buyer, BuyerEmail: p.Email}
}

// ValidateSeller checks the issuer's details as a company's billing profile.
func ValidateSeller(p Party) (Party, error) {
	p.Kind = BuyerCompany
	return NormalizeProfile(p)
}

// ReceiptMail is the Thai e-mail carrying the receipt: the same figures and
// words as the printable page, with a link to it.
func ReceiptMail(r Receipt, publicURL string) Mail {
	link := strings.TrimRight(publicURL, "/") + "/receipt/" + r.Number
	buyer := r.BuyerEmail
	if b := r.Buyer; b != nil {
		buyer = fmt.Sprintf("%s\nเลขประจำตัวผู้เสียภาษี %s %s\n%s", b.Name, b.TaxID, b.BranchLabel(), b.Address)
	}
	s := r.Seller
	number := r.Number
	if line := r.ReplacesLine(); line != "" {
		number += "\n" + line
	}
	text := fmt.Sprintf(`%s
เลขที่ %s
วันที่ %s

ผู้ขาย: %s
เลขประจำตัวผู้เสียภาษี %s %s
%s

ผู้ซื้อ: %s

รายการ: %s
มูลค่าสินค้า/บริการ: %s บาท
ภาษีมูลค่าเพิ่ม %d%%: %s บาท
จำนวนเงินรวม (รวมภาษีมูลค่าเพิ่ม): %s บาท
(%s)

ดูและพิมพ์ใบเสร็จ: %s

ขอบคุณที่ใช้บริการ BidRadar Thailand
`, r.Title(), number, ThaiDate(r.IssuedDay()), s.Name, s.TaxID, s.BranchLabel(), s.Address, buyer,
		r.Description, FormatBaht(r.BaseSatang), VATRatePercent, FormatBaht(r.VATSatang), FormatBaht(r.AmountSatang),
		BahtText(r.AmountSatang), link)
	e := html.EscapeString
	replaces := ""
	if line := r.ReplacesLine(); line != "" {
		replaces = e(line) + "<br>"
	}
	row := func(k, v string) string {
		return "<tr><th align=\"left\">" + e(k) + "</th><td align=\"right\">" + e(v) + "</td></tr>"
	}
	page := `<div style="font-family:sans-serif;max-width:640px">` +
		`<h2>` + e(r.Title()) + `</h2>` +
		`<p>เลขที่ <strong>` + e(r.Number) + `</strong><br>` + replaces + `วันที่ ` + e(ThaiDate(r.IssuedDay())) + `</p>` +
		`<p><strong>ผู้ขาย</strong><br>` + e(s.Name) + `<br>เลขประจำตัวผู้เสียภาษี ` + e(s.TaxID) + ` ` + e(s.BranchLabel()) + `<br>` + e(s.Address) + `</p>` +
		`<p><strong>ผู้ซื้อ</strong><br>` + strings.ReplaceAll(e(buyer), "\n", "<br>") + `</p>` +
		`<table cellpadding="4" style="width:100%;border-collapse:collapse">` +
		row(r.Description, FormatBaht(r.AmountSatang)) +
		row("มูลค่าสินค้า/บริการ", FormatBaht(r.BaseSatang)) +
		row(fmt.Sprintf("ภาษีมูลค่าเพิ่ม %d%%", VATRatePercent), FormatBaht(r.VATSatang)) +
		row("จำนวนเงินรวม (รวมภาษีมูลค่าเพิ่ม)", FormatBaht(r.AmountSatang)) +
		`</table><p>(` + e(BahtText(r.AmountSatang)) + `)</p>` +
		`<p><a href="` + e(link) + `">ดูและพิมพ์ใบเสร็จ</a></p><p>ขอบคุณที่ใช้บริการ BidRadar Thailand</p></div>`
	return Mail{To: r.BuyerEmail, Subject: r.Title() + " เลขที่ " + r.Number, Text: text, HTML: page}
}
