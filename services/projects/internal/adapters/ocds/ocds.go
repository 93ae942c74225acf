// Package ocds imports OCDS 1.1 release packages (streamed, null values
// tolerated) and exports projects as OCDS releases.
package ocds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"bidradar/services/projects/internal/domain"
)

// DefaultOCIDPrefix is the ocid prefix of exported releases. A real
// publisher registers its own prefix with the Open Contracting Partnership.
const DefaultOCIDPrefix = "ocds-bidradar"

// Amount is an OCDS value.
type Amount struct {
	Amount   json.Number `json:"amount,omitempty"`
	Currency string      `json:"currency,omitempty"`
}

// Period is an OCDS period.
type Period struct {
	StartDate string `json:"startDate,omitempty"`
	EndDate   string `json:"endDate,omitempty"`
}

// Identifier is an organisation identifier.
type Identifier struct {
	Scheme    string `json:"scheme,omitempty"`
	ID        string `json:"id,omitempty"`
	LegalName string `json:"legalName,omitempty"`
}

// Party is an organisation in a release.
type Party struct {
	ID         string      `json:"id"`
	Name       string      `json:"name,omitempty"`
	Identifier *Identifier `json:"identifier,omitempty"`
	Address    *struct {
		Region string `json:"region,omitempty"`
	} `json:"address,omitempty"`
	Roles []string `json:"roles,omitempty"`
}

// OrgRef references a party.
type OrgRef struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// Document is a release document.
type Document struct {
	ID            string `json:"id"`
	DocumentType  string `json:"documentType,omitempty"`
	Title         string `json:"title,omitempty"`
	URL           string `json:"url,omitempty"`
	DatePublished string `json:"datePublished,omitempty"`
}

// Tender is the tender section.
type Tender struct {
	ID                       string     `json:"id,omitempty"`
	Title                    string     `json:"title,omitempty"`
	Status                   string     `json:"status,omitempty"`
	Value                    *Amount    `json:"value,omitempty"`
	ProcurementMethod        string     `json:"procurementMethod,omitempty"`
	ProcurementMethodDetails string     `json:"procurementMethodDetails,omitempty"`
	MainProcurementCategory  string     `json:"mainProcurementCategory,omitempty"`
	ProcuringEntity          *OrgRef    `json:"procuringEntity,omitempty"`
	TenderPeriod             *Period    `json:"tenderPeriod,omitempty"`
	EnquiryPeriod            *Period    `json:"enquiryPeriod,omitempty"`
	Documents                []Document `json:"documents,omitempty"`
}

// Award is an award.
type Award struct {
	ID        string   `json:"id"`
	Status    string   `json:"status,omitempty"`
	Date      string   `json:"date,omitempty"`
	Value     *Amount  `json:"value,omitempty"`
	Suppliers []OrgRef `json:"suppliers,omitempty"`
}

// Contract is a contract.
type Contract struct {
	ID         string  `json:"id"`
	AwardID    string  `json:"awardID,omitempty"`
	Title      string  `json:"title,omitempty"`
	Status     string  `json:"status,omitempty"`
	Period     *Period `json:"period,omitempty"`
	Value      *Amount `json:"value,omitempty"`
	DateSigned string  `json:"dateSigned,omitempty"`
}

// Release is an OCDS 1.1 release (the fields we read and write).
type Release struct {
	OCID           string   `json:"ocid"`
	ID             string   `json:"id"`
	Date           string   `json:"date"`
	Tag            []string `json:"tag"`
	InitiationType string   `json:"initiationType"`
	Language       string   `json:"language,omitempty"`
	Parties        []Party  `json:"parties,omitempty"`
	Buyer          *OrgRef  `json:"buyer,omitempty"`
	Planning       *struct {
		Budget *struct {
			Amount *Amount `json:"amount,omitempty"`
		} `json:"budget,omitempty"`
	} `json:"planning,omitempty"`
	Tender    *Tender    `json:"tender,omitempty"`
	Awards    []Award    `json:"awards,omitempty"`
	Contracts []Contract `json:"contracts,omitempty"`
}

// Publisher is the package publisher.
type Publisher struct {
	Name   string `json:"name"`
	Scheme string `json:"scheme,omitempty"`
	UID    string `json:"uid,omitempty"`
	URI    string `json:"uri,omitempty"`
}

// ReleasePackage is an OCDS 1.1 release package.
type ReleasePackage struct {
	URI               string    `json:"uri"`
	Version           string    `json:"version"`
	PublishedDate     string    `json:"publishedDate"`
	Publisher         Publisher `json:"publisher"`
	License           string    `json:"license,omitempty"`
	PublicationPolicy string    `json:"publicationPolicy,omitempty"`
	Releases          []Release `json:"releases"`
}

var eleven = regexp.MustCompile(`\d{11}`)

var tagSteps = map[string]domain.AnnouncementType{
	"planning":           domain.AnnPlan,
	"tender":             domain.AnnInvitation,
	"tenderAmendment":    domain.AnnInvitationEdit,
	"tenderUpdate":       domain.AnnInvitationEdit,
	"tenderCancellation": domain.AnnInvitationVoid,
	"award":              domain.AnnWinner,
	"awardUpdate":        domain.AnnWinnerChanged,
	"awardCancellation":  domain.AnnWinnerCancelled,
}

var categories = map[string]string{"goods": "01", "works": "02", "services": "03"}

// egpBuyerID is the buyer id FromProject writes for an agency with its
// e-GP department code: "TH-EGP-" and the code's digits.
var egpBuyerID = regexp.MustCompile(`^TH-EGP-([0-9]{2,20})$`)

// egpDeptCode is the e-GP department code of a buyer id of that form, else
// "": other publishers' ids (such as "TH-BMA-50") are their own schemes, not
// e-GP codes, and are never taken for one (docs/market.md#agency-codes).
func egpDeptCode(buyerID string) string {
	if m := egpBuyerID.FindStringSubmatch(strings.TrimSpace(buyerID)); m != nil {
		return m[1]
	}
	return ""
}

// ToProject maps a release to an observation: its project id, then the
// buyer, budget, tender, parties, awards, contracts and the steps its tags
// announce.
func ToProject(r Release) (domain.Project, error) {
	id := releaseProjectID(r)
	if !domain.ValidProjectID(id) {
		return domain.Project{}, fmt.Errorf("release %q: no 11-digit e-GP project id in ocid or tender.id", r.ID)
	}
	p := domain.Project{ID: id, Source: domain.SourceOCDS}
	var am amounts
	if r.Buyer != nil {
		p.AgencyName = r.Buyer.Name
		p.AgencyCode = egpDeptCode(r.Buyer.ID)
	}
	if r.Planning != nil && r.Planning.Budget != nil {
		p.Budget = am.money(r.Planning.Budget.Amount)
	}
	if r.Tender != nil {
		mapTender(&p, r.Tender, &am)
	}
	for _, pt := range r.Parties {
		if slices.Contains(pt.Roles, "buyer") && p.AgencyName == "" {
			p.AgencyName = pt.Name
		}
		if pt.Address != nil && p.ProvinceCode == "" {
			p.ProvinceCode = domain.ProvinceCode(pt.Address.Region)
		}
	}
	mapAwards(&p, r, &am)
	for _, c := range r.Contracts {
		mapContract(&p, c, &am)
	}
	if d, ok := parseDate(r.Date); ok {
		for _, tag := range r.Tag {
			if t, ok := tagSteps[tag]; ok {
				p.Announcements = append(p.Announcements, domain.Announcement{Type: t, Name: t.NameTh(), Date: d, Link: docLink(r, t)})
			}
		}
		p.BudgetYear = domain.FiscalYear(d)
	}
	if len(am.errs) > 0 {
		return domain.Project{}, fmt.Errorf("release %q: %s", r.ID, strings.Join(am.errs, "; "))
	}
	p.Derive()
	return p, nil
}

// releaseProjectID is the e-GP project id of r: tender.id when it is one,
// else the 11 digits in the ocid, else those in tender.id.
func releaseProjectID(r Release) string {
	switch {
	case r.Tender != nil && domain.ValidProjectID(r.Tender.ID):
		return r.Tender.ID
	case eleven.FindString(r.OCID) != "":
		return eleven.FindString(r.OCID)
	case r.Tender != nil:
		return eleven.FindString(r.Tender.ID)
	}
	return ""
}

// amounts reads a release's amounts in baht, keeping the errors.
type amounts struct{ errs []string }

func (am *amounts) money(a *Amount) *domain.Money {
	if a == nil || a.Amount == "" {
		return nil
	}
	m, err := domain.ParseBaht(string(a.Amount))
	if err != nil {
		am.errs = append(am.errs, err.Error())
		return nil
	}
	return &m
}

// mapTender reads the tender: title, reference price, method, category,
// the procuring entity (when no buyer is named), cancellation and deadlines.
func mapTender(p *domain.Project, t *Tender, am *amounts) {
	p.Name = strings.Join(strings.Fields(t.Title), " ")
	p.ReferencePrice = am.money(t.Value)
	if code, ok := domain.MethodFromName(t.ProcurementMethodDetails); ok {
		p.MethodCode = code
	}
	p.MethodName = t.ProcurementMethodDetails
	p.WorkTypeCode = categories[t.MainProcurementCategory]
	if t.ProcuringEntity != nil && p.AgencyName == "" {
		p.AgencyName = t.ProcuringEntity.Name
	}
	if t.Status == "cancelled" {
		p.RawStatus = "ยกเลิกโครงการ"
	}
	// The end of the tender period is the last day to submit bids; the
	// end of the enquiry period, the last day of the hearing.
	if t.TenderPeriod != nil {
		if d, ok := parseDate(t.TenderPeriod.EndDate); ok {
			p.SubmissionDue = &d
		}
	}
	if t.EnquiryPeriod != nil {
		if d, ok := parseDate(t.EnquiryPeriod.EndDate); ok {
			p.HearingDue = &d
		}
	}
}

// mapAwards reads the standing awards (the last one wins): the agreed
// price and the first supplier, with its tax id from the parties.
func mapAwards(p *domain.Project, r Release, am *amounts) {
	for _, a := range r.Awards {
		if a.Status == "cancelled" || a.Status == "unsuccessful" {
			continue
		}
		p.AgreedPrice = am.money(a.Value)
		if len(a.Suppliers) > 0 {
			p.WinnerName = a.Suppliers[0].Name
			for _, pt := range r.Parties {
				if pt.ID == a.Suppliers[0].ID && pt.Identifier != nil {
					p.WinnerTaxID = pt.Identifier.ID
					p.WinnerTaxIDBad = len(pt.Identifier.ID) != 13
				}
			}
		}
	}
}

// mapContract reads a contract (the last one wins): number, value, dates
// and status in e-GP's words.
func mapContract(p *domain.Project, c Contract, am *amounts) {
	p.ContractNo = c.ID
	p.ContractValue = am.money(c.Value)
	if d, ok := parseDate(c.DateSigned); ok {
		p.ContractSigned = &d
	}
	if c.Period != nil {
		if d, ok := parseDate(c.Period.EndDate); ok {
			p.ContractEnd = &d
		}
	}
	switch c.Status {
	case "terminated":
		p.ContractStatus = "สิ้นสุดสัญญา"
	case "cancelled":
		p.ContractStatus = "ยกเลิกสัญญา"
	case "active":
		p.ContractStatus = "ระหว่างดำเนินการ"
	}
}

func docLink(r Release, t domain.AnnouncementType) string {
	if r.Tender == nil {
		return ""
	}
	for _, d := range r.Tender.Documents {
		if d.DocumentType == "egp:"+string(t) {
			return d.URL
		}
	}
	return ""
}

func parseDate(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		t = t.In(domain.Bangkok)
		return domain.Date(t.Year(), t.Month(), t.Day()), true
	}
	if d, ok, err := domain.ParseThaiDate(s); err == nil && ok {
		return d, true
	}
	return time.Time{}, false
}

// Decode streams the releases of a release package (also a bare array of
// releases) without loading the whole file: the BMA combined file is
// ~215 MB.
func Decode(r io.Reader, fn func(Release) error, onErr func(domain.RecordError)) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("ocds: %w", err)
	}
	if d, ok := tok.(json.Delim); ok && d == '[' {
		return decodeArray(dec, fn, onErr)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("ocds: not a release package")
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return fmt.Errorf("ocds: %w", err)
		}
		if k, _ := kt.(string); k == "releases" {
			t, err := dec.Token()
			if err != nil {
				return fmt.Errorf("ocds: %w", err)
			}
			if t == nil { // "releases": null
				continue
			}
			if err := decodeArray(dec, fn, onErr); err != nil {
				return err
			}
			continue
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("ocds: %w", err)
		}
	}
	return nil
}

func decodeArray(dec *json.Decoder, fn func(Release) error, onErr func(domain.RecordError)) error {
	for i := 1; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("ocds release %d: %w", i, err)
		}
		var rel Release
		if err := json.Unmarshal(raw, &rel); err != nil {
			onErr(domain.RecordError{Line: i, Err: err})
			continue
		}
		if err := fn(rel); err != nil {
			return err
		}
	}
	_, err := dec.Token() // ]
	return err
}

// Source is the ingestion adapter for an OCDS release package.
type Source struct {
	Open func() (io.ReadCloser, error)
}

// Name implements domain.ObservationSource.
func (s Source) Name() string { return domain.SourceOCDS }

// Each implements domain.ObservationSource.
func (s Source) Each(ctx context.Context, fn func(domain.Project) error, onErr func(domain.RecordError)) error {
	rc, err := s.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	i := 0
	return Decode(rc, func(r Release) error {
		i++
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p, err := ToProject(r)
		if err != nil {
			onErr(domain.RecordError{Line: i, Err: err})
			return nil
		}
		return fn(p)
	}, onErr)
}

var methodClass = map[string]string{
	"15": "open", "16": "open", "03": "open", "06": "open", "20": "open", "23": "open", "28": "open",
	"18": "selective", "09": "selective", "11": "selective", "12": "selective", "21": "selective", "24": "selective",
	"19": "direct", "17": "direct", "22": "direct", "25": "direct", "01": "direct", "04": "limited", "05": "limited",
}

func amount(m *domain.Money) *Amount {
	if m == nil {
		return nil
	}
	return &Amount{Amount: json.Number(m.String()), Currency: "THB"}
}

// FromProject exports a project as one compiled OCDS release.
func FromProject(p domain.Project, prefix string) Release {
	if prefix == "" {
		prefix = DefaultOCIDPrefix
	}
	date := p.LastSeen
	if date.IsZero() {
		date = p.LastAnnounced
	}
	r := Release{
		OCID:           prefix + "-" + p.ID,
		ID:             p.ID + "-" + date.UTC().Format("20060102T150405Z"),
		Date:           date.UTC().Format(time.RFC3339),
		Tag:            []string{"compiled"},
		InitiationType: "tender",
		Language:       "th",
	}
	buyerID := "TH-EGP-" + p.AgencyCode
	if p.AgencyCode == "" {
		buyerID = "TH-EGP-" + p.AgencyName
	}
	buyer := Party{ID: buyerID, Name: p.AgencyName, Roles: []string{"buyer", "procuringEntity"}}
	if p.ProvinceCode != "" {
		buyer.Address = &struct {
			Region string `json:"region,omitempty"`
		}{Region: domain.ProvinceName(p.ProvinceCode)}
	}
	r.Parties = append(r.Parties, buyer)
	r.Buyer = &OrgRef{ID: buyer.ID, Name: buyer.Name}
	if p.Budget != nil {
		r.Planning = &struct {
			Budget *struct {
				Amount *Amount `json:"amount,omitempty"`
			} `json:"budget,omitempty"`
		}{Budget: &struct {
			Amount *Amount `json:"amount,omitempty"`
		}{Amount: amount(p.Budget)}}
	}
	t := &Tender{
		ID: p.ID, Title: p.Name, Value: amount(p.ReferencePrice),
		ProcurementMethod:        methodClass[p.MethodCode],
		ProcurementMethodDetails: p.MethodName,
		ProcuringEntity:          r.Buyer,
	}
	for c, code := range categories {
		if code == p.WorkTypeCode {
			t.MainProcurementCategory = c
		}
	}
	switch p.Status {
	case domain.StatusPlanned, domain.StatusHearing, domain.StatusReferencePrice:
		t.Status = "planned"
	case domain.StatusOpen, domain.StatusAmended:
		t.Status = "active"
	case domain.StatusCancelled:
		t.Status = "cancelled"
	default:
		t.Status = "complete"
	}
	for i, a := range p.Announcements {
		t.Documents = append(t.Documents, Document{
			ID: fmt.Sprintf("%s-%d", p.ID, i+1), DocumentType: "egp:" + string(a.Type), Title: a.Name,
			URL: a.Link, DatePublished: a.Date.Format(time.RFC3339),
		})
	}
	if p.SubmissionDue != nil {
		t.TenderPeriod = &Period{EndDate: p.SubmissionDue.Format(time.RFC3339)}
	}
	if p.HearingDue != nil {
		t.EnquiryPeriod = &Period{EndDate: p.HearingDue.Format(time.RFC3339)}
	}
	r.Tender = t
	if p.WinnerName != "" || p.AgreedPrice != nil {
		sup := Party{ID: "TH-TIN-" + p.WinnerTaxID, Name: p.WinnerName, Roles: []string{"supplier"}}
		if p.WinnerTaxID == "" || p.WinnerTaxIDBad {
			sup.ID = "TH-NAME-" + p.WinnerName
		} else {
			sup.Identifier = &Identifier{Scheme: "TH-DBD", ID: p.WinnerTaxID, LegalName: p.WinnerName}
		}
		r.Parties = append(r.Parties, sup)
		r.Awards = []Award{{ID: p.ID + "-award", Status: "active", Value: amount(p.AgreedPrice), Suppliers: []OrgRef{{ID: sup.ID, Name: sup.Name}}}}
	}
	if p.ContractNo != "" || p.ContractSigned != nil {
		c := Contract{ID: p.ContractNo, AwardID: p.ID + "-award", Value: amount(p.ContractValue), Status: "active"}
		if c.ID == "" {
			c.ID = p.ID + "-contract"
		}
		if p.ContractSigned != nil {
			c.DateSigned = p.ContractSigned.Format(time.RFC3339)
		}
		if p.ContractEnd != nil {
			c.Period = &Period{EndDate: p.ContractEnd.Format(time.RFC3339)}
		}
		if p.Status == domain.StatusCompleted {
			c.Status = "terminated"
		}
		r.Contracts = []Contract{c}
	}
	return r
}

// NewPackage wraps releases in a release package.
func NewPackage(uri string, published time.Time, rs []Release) ReleasePackage {
	return ReleasePackage{
		URI: uri, Version: "1.1", PublishedDate: published.UTC().Format(time.RFC3339),
		Publisher: Publisher{Name: "BidRadar"},
		License:   "https://creativecommons.org/licenses/by/4.0/",
		Releases:  rs,
	}
}
