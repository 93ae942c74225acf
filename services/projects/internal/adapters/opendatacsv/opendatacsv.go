// Package opendatacsv reads the CGD e-GP contract CSV files of data.go.th
// (Thai headers, the 32 columns of EGP.md §2.1) as a stream: the column
// shift is detected and repaired, Thai dates in all styles are read, '-' is
// empty, Excel-damaged tax ids are flagged and not trusted, Thai digits and
// float-formatted numbers are accepted; Windows-874 files are decoded.
package opendatacsv

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/transform"

	"bidradar/services/projects/internal/domain"
)

// Canonical column names (CSV spelling, with a space before "(Eng)").
const (
	colID          = "_id"
	colSeq         = "ลำดับ"
	colProjectID   = "รหัสโครงการ"
	colName        = "ชื่อโครงการ"
	colType        = "ชื่อประเภทโครงการ"
	colAgency      = "ชื่อหน่วยงาน"
	colSubAgency   = "ชื่อหน่วยงานย่อย"
	colMethod      = "วิธีจัดซื้อฯ"
	colMethodGroup = "กลุ่มวิธีจัดซื้อฯ"
	colAnnounced   = "วันที่ประกาศ"
	colBudget      = "งบประมาณ(บาท)"
	colRefPrice    = "ราคากลาง(บาท)"
	colAgreed      = "ราคาตกลงซื้อ/จ้าง"
	colFY          = "ปีงบประมาณ"
	colTxDate      = "วันที่เกิดรายการ"
	colProvince    = "จังหวัด"
	colProvinceEn  = "จังหวัด (Eng)"
	colDistrict    = "เขต/อำเภอ"
	colDistrictEn  = "เขต/อำเภอ (Eng)"
	colSubdist     = "แขวง/ตำบล"
	colSubdistEn   = "แขวง/ตำบล (Eng)"
	colStatus      = "สถานะโครงการ"
	colLocation    = "พิกัดของโครงการ"
	colLat         = "ละติจูดโครงการ"
	colLon         = "ลองจิจูดโครงการ"
	colTaxID       = "เลขนิติบุคคล"
	colWinner      = "ชื่อผู้ชนะ"
	colContractNo  = "เลขที่สัญญา"
	colSigned      = "วันที่ลงนามสัญญา"
	colEnd         = "วันที่สิ้นสุดสัญญา"
	colContractVal = "งบสัญญา(บาท)"
	colContractSt  = "สถานะสัญญา"
)

// Columns are the 32 columns of the full schema, in order.
var Columns = []string{
	colID, colSeq, colProjectID, colName, colType, colAgency, colSubAgency, colMethod, colMethodGroup,
	colAnnounced, colBudget, colRefPrice, colAgreed, colFY, colTxDate, colProvince, colProvinceEn,
	colDistrict, colDistrictEn, colSubdist, colSubdistEn, colStatus, colLocation, colLat, colLon,
	colTaxID, colWinner, colContractNo, colSigned, colEnd, colContractVal, colContractSt,
}

// tailColumns are the contract columns at the end of a row; after a shift
// they are found relative to the tax id.
var tailColumns = []string{colTaxID, colWinner, colContractNo, colSigned, colEnd, colContractVal, colContractSt}

var (
	taxIDRe   = regexp.MustCompile(`^\d{13}$`)
	damagedRe = regexp.MustCompile(`^\d+(\.\d+)?[eE]\+?\d+$`)
)

// TaxID classifies a winner tax id: ok for 13 digits, damaged for values
// that Excel turned into floats or that lost their leading zero.
func TaxID(s string) (id string, damaged bool) {
	s = strings.TrimSpace(fold(s))
	if s == "" || s == "-" {
		return "", false
	}
	if taxIDRe.MatchString(s) {
		return s, false
	}
	return s, true
}

func looksLikeTaxID(s string) bool {
	s = strings.TrimSpace(fold(s))
	return taxIDRe.MatchString(s) || damagedRe.MatchString(s) || (len(s) == 12 && isDigits(s))
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '๐' && r <= '๙' {
			return '0' + r - '๐'
		}
		return r
	}, s)
}

// canonical maps header spellings to the canonical names: the DataStore API
// writes "จังหวัด(Eng)" without the space.
func canonical(h string) string {
	h = strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))
	h = strings.Join(strings.Fields(h), " ")
	if strings.HasSuffix(h, "(Eng)") && !strings.HasSuffix(h, " (Eng)") {
		h = strings.TrimSuffix(h, "(Eng)") + " (Eng)"
	}
	return h
}

// Stats describe a finished read.
type Stats struct {
	Rows, Repaired, DamagedTaxIDs, Skipped int
}

// Reader streams projects out of one CSV file.
type Reader struct {
	r        *csv.Reader
	idx      map[string]int
	line     int
	Stats    Stats
	repaired bool
}

// ErrNoHeader reports a file without the expected header.
var ErrNoHeader = errors.New("open-data CSV: header without รหัสโครงการ/ชื่อโครงการ")

// NewReader reads the header of r. Files are UTF-8 (with or without a
// BOM) as data.go.th serves them; a file re-saved by Thai Excel or an
// agency's own export is Windows-874 (TIS-620), recognised by its first
// 64 kB not being UTF-8, and decoded.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if head, _ := br.Peek(64 << 10); !validUTF8Prefix(head) {
		br = bufio.NewReaderSize(transform.NewReader(br, charmap.Windows874.NewDecoder()), 1<<20)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read CSV header: %w", err)
	}
	idx := make(map[string]int, len(head))
	for i, h := range head {
		c := canonical(h)
		if _, dup := idx[c]; !dup {
			idx[c] = i
		}
	}
	if _, ok := idx[colProjectID]; !ok {
		return nil, ErrNoHeader
	}
	if _, ok := idx[colName]; !ok {
		return nil, ErrNoHeader
	}
	return &Reader{r: cr, idx: idx, line: 1}, nil
}

// validUTF8Prefix reports whether b is UTF-8 but for a character cut at
// its end.
func validUTF8Prefix(b []byte) bool {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return true
		}
		if r, _ := utf8.DecodeLastRune(b); r != utf8.RuneError {
			return false
		}
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// Next returns the next project; io.EOF at the end. A *domain.RecordError
// reports a bad row; the caller may continue.
func (rd *Reader) Next() (domain.Project, error) {
	rec, err := rd.r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return domain.Project{}, io.EOF
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			rd.line++
			rd.Stats.Skipped++
			return domain.Project{}, &domain.RecordError{Line: pe.Line, Err: err}
		}
		return domain.Project{}, err
	}
	rd.line++
	rd.Stats.Rows++
	p, err := rd.row(rec)
	if err != nil {
		rd.Stats.Skipped++
		return domain.Project{}, &domain.RecordError{Line: rd.line, Err: err}
	}
	if rd.repaired {
		rd.Stats.Repaired++
	}
	if p.WinnerTaxIDBad {
		rd.Stats.DamagedTaxIDs++
	}
	return p, nil
}

// row maps a record to a project: its cells (repairing a shifted row), then
// the project's fields, money and Thai dates.
func (rd *Reader) row(rec []string) (domain.Project, error) {
	get, tget, shift := rd.cells(rec)
	id := strings.TrimSpace(fold(get(colProjectID)))
	id = strings.TrimSuffix(id, ".0")
	if !domain.ValidProjectID(id) {
		return domain.Project{}, fmt.Errorf("project id %q is not 11 digits", id)
	}
	p := domain.Project{
		ID:            id,
		Name:          strings.Join(strings.Fields(get(colName)), " "),
		AgencyName:    get(colAgency),
		SubAgencyName: get(colSubAgency),
		Source:        domain.SourceOpenData,
		ProvinceCode:  domain.ProvinceCode(get(colProvince)),
	}
	if shift == 0 {
		p.District = get(colDistrict)
		p.Subdistrict = get(colSubdist)
		p.RawStatus = get(colStatus)
		p.Location = get(colLocation)
	} else if s := statusBefore(rec, rd.idx[colTaxID]-shift); s != "" {
		p.RawStatus = s
	}
	if code, ok := domain.WorkTypeFromName(get(colType)); ok {
		p.WorkTypeCode = code
	}
	p.WorkTypeName = get(colType)
	p.MethodCode, p.MethodName = method(get(colMethod), get(colMethodGroup))
	var errs []string
	money := func(col string, dst **domain.Money, v string) {
		if v == "" {
			return
		}
		m, err := domain.ParseBaht(v)
		if err != nil {
			errs = append(errs, col+": "+err.Error())
			return
		}
		*dst = &m
	}
	money(colBudget, &p.Budget, get(colBudget))
	money(colRefPrice, &p.ReferencePrice, get(colRefPrice))
	money(colAgreed, &p.AgreedPrice, get(colAgreed))
	money(colContractVal, &p.ContractValue, tget(colContractVal))
	if fy := strings.TrimSuffix(fold(get(colFY)), ".0"); fy != "" {
		if n, err := strconv.Atoi(fy); err == nil && n > 2400 && n < 2700 {
			p.BudgetYear = n
		} else {
			errs = append(errs, "fiscal year "+fy)
		}
	}
	date := func(col, v string) *time.Time {
		d, ok, err := domain.ParseThaiDate(v)
		if err != nil {
			errs = append(errs, col+": "+err.Error())
			return nil
		}
		if !ok {
			return nil
		}
		return &d
	}
	p.ContractSigned = date(colSigned, tget(colSigned))
	p.ContractEnd = date(colEnd, tget(colEnd))
	p.ContractNo = tget(colContractNo)
	p.ContractStatus = tget(colContractSt)
	p.WinnerName = tget(colWinner)
	p.WinnerTaxID, p.WinnerTaxIDBad = TaxID(tget(colTaxID))
	// The announcement date of contract data: record it as the winner
	// announcement when there is a winner, else as the invitation.
	if d := date(colAnnounced, get(colAnnounced)); d != nil {
		t := domain.AnnInvitation
		if p.WinnerName != "" {
			t = domain.AnnWinner
		}
		p.Announcements = []domain.Announcement{{Type: t, Name: t.NameTh(), Date: *d}}
	}
	if len(errs) > 0 {
		return domain.Project{}, fmt.Errorf("project %s: %s", id, strings.Join(errs, "; "))
	}
	p.Derive()
	return p, nil
}

// cells returns the readers of rec's cells by column name: get for the
// columns as the header places them, tget for the contract columns at the
// end of the row, which a shifted row (fewer values than the header: a
// value missing before them) holds shift places earlier. The tax id finds
// the shift: in a sound row it sits under เลขนิติบุคคล, in a shifted row
// earlier, typically under พิกัดของโครงการ.
func (rd *Reader) cells(rec []string) (get, tget func(col string) string, shift int) {
	get = func(col string) string {
		i, ok := rd.idx[col]
		if !ok || i >= len(rec) {
			return ""
		}
		return cell(rec[i])
	}
	rd.repaired = false
	if ti, ok := rd.idx[colTaxID]; ok {
		if li, ok := rd.idx[colLocation]; ok && li < len(rec) && looksLikeTaxID(cell(rec[li])) {
			shift = ti - li
		} else if len(rec) < len(rd.idx) {
			for s := 1; s <= 3 && ti-s >= 0 && ti-s < len(rec); s++ {
				if looksLikeTaxID(cell(rec[ti-s])) {
					shift = s
					break
				}
			}
		}
	}
	if shift <= 0 {
		return get, get, shift
	}
	rd.repaired = true
	tail := map[string]string{}
	for _, col := range tailColumns {
		if i, ok := rd.idx[col]; ok && i-shift < len(rec) && i-shift >= 0 {
			tail[col] = cell(rec[i-shift])
		}
	}
	return get, func(col string) string { return tail[col] }, shift
}

// method reads the procurement method from the columns วิธีจัดซื้อฯ and
// กลุ่มวิธีจัดซื้อฯ, which swap between years: the constant group label is
// recognisable, the other one is the method (its name kept when no code
// is known for it).
func method(values ...string) (code, name string) {
	for _, v := range values {
		if v == "" || strings.HasPrefix(v, "วิธีการจัดหา") || v == "งานจ้างที่ปรึกษา" {
			continue
		}
		if c, ok := domain.MethodFromName(v); ok {
			return c, v
		}
		if name == "" {
			name = v
		}
	}
	return code, name
}

var knownStatuses = map[string]bool{
	"ระหว่างดำเนินการ": true, "สิ้นสุดสัญญา": true, "แล้วเสร็จตามสัญญา": true, "ยกเลิกโครงการ": true,
	"จัดทำสัญญา/PO แล้ว": true,
}

// statusBefore looks for a project status among the few values before the
// (shifted) tax id.
func statusBefore(rec []string, taxPos int) string {
	for i := taxPos - 1; i >= 0 && i >= taxPos-4; i-- {
		if v := cell(rec[i]); knownStatuses[v] {
			return v
		}
	}
	return ""
}

func cell(s string) string {
	s = strings.TrimSpace(s)
	if s == "-" || s == "--" || strings.EqualFold(s, "null") || s == "NaN" {
		return ""
	}
	return s
}

// CountingReader counts the bytes read through it (for progress bars).
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}

// Source is the ingestion adapter for one CSV stream.
type Source struct {
	Open func() (io.ReadCloser, error)
	// Stats is filled when Each returns.
	Stats Stats
}

// Name implements domain.ObservationSource.
func (s *Source) Name() string { return domain.SourceOpenData }

// Each implements domain.ObservationSource.
func (s *Source) Each(ctx context.Context, fn func(domain.Project) error, onErr func(domain.RecordError)) error {
	rc, err := s.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	rd, err := NewReader(rc)
	if err != nil {
		return err
	}
	defer func() { s.Stats = rd.Stats }()
	for i := 0; ; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		p, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var re *domain.RecordError
		if errors.As(err, &re) {
			onErr(*re)
			continue
		}
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}
