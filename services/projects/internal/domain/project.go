package domain

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"time"

	"bidradar/pkg/thaitext"

	"bidradar/pkg/apperr"
)

// Status is the derived lifecycle status of a project.
type Status string

// Statuses, in lifecycle order.
const (
	StatusPlanned        Status = "planned"
	StatusHearing        Status = "hearing"
	StatusReferencePrice Status = "reference_price"
	StatusOpen           Status = "open"
	StatusAmended        Status = "amended"
	StatusCancelled      Status = "cancelled"
	StatusAwarded        Status = "awarded"
	StatusContracted     Status = "contracted"
	StatusCompleted      Status = "completed"
)

// Statuses lists the statuses with Thai labels.
var Statuses = []Code{
	{string(StatusPlanned), "แผนการจัดซื้อจัดจ้าง"},
	{string(StatusHearing), "ร่างเอกสาร/รับฟังความคิดเห็น"},
	{string(StatusReferencePrice), "ประกาศราคากลาง"},
	{string(StatusOpen), "ประกาศเชิญชวน"},
	{string(StatusAmended), "เปลี่ยนแปลงประกาศเชิญชวน"},
	{string(StatusCancelled), "ยกเลิก"},
	{string(StatusAwarded), "ประกาศผู้ชนะการเสนอราคา"},
	{string(StatusContracted), "จัดทำสัญญา/บริหารสัญญา"},
	{string(StatusCompleted), "สิ้นสุดสัญญา"},
}

// Source names where an observation came from.
const (
	SourceRSS      = "egp-rss"
	SourceOpenData = "opendata-csv"
	SourceOCDS     = "ocds"
	SourceDemo     = "demo"
)

// Announcement is one announcement step of a project.
type Announcement struct {
	Type AnnouncementType `json:"type"`
	Name string           `json:"name"` // Thai label
	Date time.Time        `json:"date"` // Bangkok calendar date
	Link string           `json:"link,omitempty"`
}

// Key is the natural key of a step: type, date and the link without its
// seqNo (the feed repeats an item with only seqNo changed).
func (a Announcement) Key() string {
	return string(a.Type) + "|" + a.Date.Format("2006-01-02") + "|" + canonicalLink(a.Link)
}

func canonicalLink(l string) string {
	if l == "" {
		return ""
	}
	u, err := url.Parse(l)
	if err != nil {
		return l
	}
	q := u.Query()
	q.Del("seqNo")
	u.RawQuery = q.Encode()
	u.Scheme = ""
	return u.String()
}

// Project is a procurement project keyed by its 11-digit e-GP id.
type Project struct {
	ID              string
	Name            string
	AgencyCode      string // e-GP deptId
	AgencyName      string // ชื่อหน่วยงาน
	SubAgencyCode   string // deptsubId
	SubAgencyName   string // ชื่อหน่วยงานย่อย
	MinistryCode    string
	MinistryName    string
	ProvinceCode    string // 2-digit DOPA code
	District        string
	Subdistrict     string
	MethodCode      string
	MethodName      string
	WorkTypeCode    string // category of work (typeId)
	WorkTypeName    string
	StrategyCode    string
	Budget          *Money
	ReferencePrice  *Money
	AgreedPrice     *Money
	BudgetYear      int // B.E. fiscal year
	Status          Status
	RawStatus       string // สถานะโครงการ as published
	Announcements   []Announcement
	WinnerTaxID     string
	WinnerTaxIDBad  bool // damaged by Excel (1.05552E+11): not trusted
	WinnerName      string
	ContractNo      string
	ContractSigned  *time.Time
	ContractEnd     *time.Time
	ContractValue   *Money
	ContractStatus  string     // สถานะสัญญา
	Location        string     // พิกัดของโครงการ (WKT)
	SubmissionDue   *time.Time // the last day to submit bids (วันยื่นข้อเสนอ), Bangkok date
	HearingDue      *time.Time // the last day of the price / draft hearing (รับฟังคำวิจารณ์), Bangkok date
	FirstSeen       time.Time
	LastSeen        time.Time
	Source          string
	SearchText      string // derived: thaitext.Normalize(Name)
	LastAnnounced   time.Time
	LastAnnounceTyp AnnouncementType

	// searchOf is the Name that SearchText was derived from: Derive skips
	// normalising it again (a parsed observation is derived by its source
	// and again by Merge).
	searchOf string
}

var projectIDRe = regexp.MustCompile(`^\d{11}$`)

// ErrInvalidProjectID reports an id that is not 11 ASCII digits (a 400);
// InvalidProjectID names the id.
var ErrInvalidProjectID = apperr.New(apperr.InvalidArgument, "invalid-project-id", "Invalid project id: it must be 11 digits")

// InvalidProjectID is ErrInvalidProjectID for id.
func InvalidProjectID(id string) error {
	return &apperr.Error{Kind: ErrInvalidProjectID.Kind, Slug: ErrInvalidProjectID.Slug,
		Message: fmt.Sprintf("Invalid project id %q: it must be 11 digits", id)}
}

// ValidProjectID reports whether id is an 11-digit e-GP project id.
func ValidProjectID(id string) bool { return projectIDRe.MatchString(id) }

// CheckID validates the id of p.
func (p *Project) CheckID() error {
	if !ValidProjectID(p.ID) {
		return InvalidProjectID(p.ID)
	}
	return nil
}

// Derive recomputes the derived fields: sorted steps, last announcement,
// status, fiscal year, search text, Thai names of codes.
func (p *Project) Derive() {
	sort.SliceStable(p.Announcements, func(i, j int) bool {
		a, b := p.Announcements[i], p.Announcements[j]
		if !a.Date.Equal(b.Date) {
			return a.Date.Before(b.Date)
		}
		return a.Type.Rank() < b.Type.Rank()
	})
	for i := range p.Announcements {
		if p.Announcements[i].Name == "" {
			p.Announcements[i].Name = p.Announcements[i].Type.NameTh()
		}
	}
	if n := len(p.Announcements); n > 0 {
		last := p.Announcements[n-1]
		p.LastAnnounced = last.Date
		p.LastAnnounceTyp = last.Type
	}
	if p.MethodName == "" {
		p.MethodName = MethodName(p.MethodCode)
	}
	if p.WorkTypeName == "" {
		p.WorkTypeName = WorkTypeName(p.WorkTypeCode)
	}
	if p.MinistryName == "" {
		p.MinistryName = MinistryName(p.MinistryCode)
	}
	if p.BudgetYear == 0 && !p.LastAnnounced.IsZero() {
		p.BudgetYear = FiscalYear(p.Announcements[0].Date)
	}
	p.Status = DeriveStatus(p)
	if p.Name == "" || p.searchOf != p.Name {
		p.SearchText = thaitext.Normalize(p.Name)
		p.searchOf = p.Name
	}
}

// DeriveStatus computes the status from contract data and the announcement
// type of the latest step, never from title keywords (a cancellation title
// still contains "ประกาศเชิญชวน").
func DeriveStatus(p *Project) Status {
	switch p.RawStatus {
	case "ยกเลิกโครงการ", "ยกเลิกประกาศเชิญชวน":
		return StatusCancelled
	}
	switch p.ContractStatus {
	case "สิ้นสุดสัญญา", "แล้วเสร็จตามสัญญา", "ส่งงานครบถ้วน", "ส่งงานตามกำหนด":
		return StatusCompleted
	case "ยกเลิกสัญญา":
		return StatusCancelled
	}
	if p.RawStatus == "สิ้นสุดสัญญา" || p.RawStatus == "แล้วเสร็จตามสัญญา" {
		return StatusCompleted
	}
	if p.ContractNo != "" || p.ContractSigned != nil {
		return StatusContracted
	}
	if n := len(p.Announcements); n > 0 {
		switch p.Announcements[n-1].Type {
		case AnnPlan:
			return StatusPlanned
		case AnnDraft:
			return StatusHearing
		case AnnReferencePrice:
			return StatusReferencePrice
		case AnnInvitation:
			return StatusOpen
		case AnnInvitationEdit:
			return StatusAmended
		case AnnInvitationVoid, AnnWinnerCancelled:
			return StatusCancelled
		case AnnWinner, AnnWinnerChanged:
			return StatusAwarded
		}
	}
	if p.WinnerName != "" || p.AgreedPrice != nil {
		return StatusAwarded
	}
	return StatusPlanned
}

// Merge folds an observation into the stored project (nil for a new one).
// Non-empty incoming fields win; steps are unioned on their natural key.
// It returns the merged project, whether anything changed, and the steps
// that are new.
func Merge(existing *Project, in Project, now time.Time) (Project, bool, []Announcement) {
	if existing == nil {
		p := in
		p.Announcements = dedupSteps(nil, in.Announcements)
		p.FirstSeen, p.LastSeen = now, now
		p.Derive()
		return p, true, append([]Announcement(nil), p.Announcements...)
	}
	p := *existing
	p.Announcements = append([]Announcement(nil), existing.Announcements...)
	setS := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	setM := func(dst **Money, v *Money) {
		if v != nil {
			*dst = v
		}
	}
	setT := func(dst **time.Time, v *time.Time) {
		if v != nil {
			*dst = v
		}
	}
	setS(&p.Name, in.Name)
	setS(&p.AgencyCode, in.AgencyCode)
	setS(&p.AgencyName, in.AgencyName)
	setS(&p.SubAgencyCode, in.SubAgencyCode)
	setS(&p.SubAgencyName, in.SubAgencyName)
	setS(&p.MinistryCode, in.MinistryCode)
	setS(&p.MinistryName, in.MinistryName)
	setS(&p.ProvinceCode, in.ProvinceCode)
	setS(&p.District, in.District)
	setS(&p.Subdistrict, in.Subdistrict)
	setS(&p.MethodCode, in.MethodCode)
	setS(&p.MethodName, in.MethodName)
	setS(&p.WorkTypeCode, in.WorkTypeCode)
	setS(&p.WorkTypeName, in.WorkTypeName)
	setS(&p.StrategyCode, in.StrategyCode)
	setM(&p.Budget, in.Budget)
	setM(&p.ReferencePrice, in.ReferencePrice)
	setM(&p.AgreedPrice, in.AgreedPrice)
	if in.BudgetYear != 0 {
		p.BudgetYear = in.BudgetYear
	}
	setS(&p.RawStatus, in.RawStatus)
	if in.WinnerTaxID != "" && (!in.WinnerTaxIDBad || p.WinnerTaxID == "" || p.WinnerTaxIDBad) {
		p.WinnerTaxID, p.WinnerTaxIDBad = in.WinnerTaxID, in.WinnerTaxIDBad
	}
	setS(&p.WinnerName, in.WinnerName)
	setS(&p.ContractNo, in.ContractNo)
	setT(&p.ContractSigned, in.ContractSigned)
	setT(&p.ContractEnd, in.ContractEnd)
	setM(&p.ContractValue, in.ContractValue)
	setS(&p.ContractStatus, in.ContractStatus)
	setS(&p.Location, in.Location)
	setT(&p.SubmissionDue, in.SubmissionDue)
	setT(&p.HearingDue, in.HearingDue)
	setS(&p.Source, in.Source)
	before := len(p.Announcements)
	p.Announcements = dedupSteps(p.Announcements, in.Announcements)
	added := append([]Announcement(nil), p.Announcements[before:]...)
	p.Derive()
	changed := !sameProject(existing, &p)
	if changed {
		p.LastSeen = now
	}
	return p, changed, added
}

func dedupSteps(have, in []Announcement) []Announcement {
	seen := make(map[string]bool, len(have)+len(in))
	for _, a := range have {
		seen[a.Key()] = true
	}
	out := have
	for _, a := range in {
		if !a.Type.Valid() || a.Date.IsZero() {
			continue
		}
		if k := a.Key(); !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}

func sameProject(a, b *Project) bool {
	x, y := *a, *b
	x.FirstSeen, x.LastSeen, y.FirstSeen, y.LastSeen = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	x.Source, y.Source = "", ""
	x.searchOf, y.searchOf = "", ""
	return fmt.Sprintf("%+v", deref(x)) == fmt.Sprintf("%+v", deref(y))
}

// deref renders pointer fields as values so that equal contents compare equal.
func deref(p Project) []any {
	m := func(v *Money) any {
		if v == nil {
			return nil
		}
		return int64(*v)
	}
	t := func(v *time.Time) any {
		if v == nil {
			return nil
		}
		return v.Unix()
	}
	steps := make([]string, len(p.Announcements))
	for i, a := range p.Announcements {
		steps[i] = a.Key() + a.Link + a.Name
	}
	b, r, ag, cv := m(p.Budget), m(p.ReferencePrice), m(p.AgreedPrice), m(p.ContractValue)
	cs, ce := t(p.ContractSigned), t(p.ContractEnd)
	sd, hd := t(p.SubmissionDue), t(p.HearingDue)
	p.Budget, p.ReferencePrice, p.AgreedPrice, p.ContractValue = nil, nil, nil, nil
	p.ContractSigned, p.ContractEnd, p.SubmissionDue, p.HearingDue = nil, nil, nil, nil
	p.Announcements = nil
	return []any{p, b, r, ag, cv, cs, ce, sd, hd, steps}
}
