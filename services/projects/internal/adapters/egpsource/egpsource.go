// Package egpsource fetches one e-GP project by its 11-digit id: the
// domain.ProjectSource used by scrape and update-project-smart.
//
// Which endpoint, and why. The public RSS feed (EPROCRssFeedWeb) is the only
// verified e-GP feed, but it takes no project id: its filters are deptId,
// anounceType, methodId (deptsubId, moiId, typeId barely work) and an
// unfiltered query returns only the latest ~20 items, so "not in the feed"
// would not mean "no such project". The one endpoint reported to answer for a
// given id is the JSON behind the new e-GP site,
//
//	GET https://process5.gprocurement.go.th/egp-atpj27-service/pb/a-egp-allt-project/announcement/getProjectDetail?projectId=<id>
//
// which answers {"data": {...}} with projectId, projectName, deptId,
// deptSubId, deptSubName, methodId, typeId, projectMoney (budget),
// priceBuild (reference price), priceAgree, announceDate, stepId,
// projectStatus (A active, R cancelled) and announceType. It is unofficial
// (reported, not verified): the base URL is configuration (EGP_PROJECT_URL),
// requests are polite (timeout, User-Agent, the Referer the e-GP WAF wants,
// retries with exponential backoff and jitter on network errors, 429 and
// 5xx, honouring Retry-After), and the product's main ingestion does not
// depend on it. Reported: e-GP may ask for an X-Announcement-Token on these
// calls; we do not work around that, the answer {"validateAnnouncementToken":
// false} becomes a clear failure.
//
// Parsing is tolerant where the reports are vague: the object may come
// wrapped in "data" or bare; numbers may be JSON numbers or strings with
// thousands separators; dates may be ISO dates, ISO date-times, epoch
// milliseconds or Thai dates. An empty or null "data", or HTTP 404, means
// the id is unknown to e-GP (domain.ErrNotAtSource). JSON is UTF-8; a body
// that is not valid UTF-8 is read as Windows-874, the encoding of the rest
// of e-GP.
package egpsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"bidradar/services/projects/internal/adapters/egphttp"
	"bidradar/services/projects/internal/domain"
)

// DefaultURL is the reported getProjectDetail endpoint.
const DefaultURL = "https://process5.gprocurement.go.th/egp-atpj27-service/pb/a-egp-allt-project/announcement/getProjectDetail"

// Referer is sent with every request: the e-GP WAF refuses requests without one.
const Referer = "https://process5.gprocurement.go.th/egp-agpc01-web/announcement"

// ErrPermanent marks an answer that retrying will not fix.
var ErrPermanent = egphttp.ErrPermanent

// Client is the HTTP adapter (polite fetching in egphttp).
type Client struct {
	egphttp.Getter
	URL string // endpoint; the projectId query parameter is added
}

// New returns a client for endpoint (DefaultURL when empty): 20 s per
// request, 3 retries from 1 s.
func New(endpoint string) *Client {
	if endpoint == "" {
		endpoint = DefaultURL
	}
	return &Client{
		Getter: egphttp.Getter{
			HTTP:       &http.Client{Timeout: 20 * time.Second},
			UserAgent:  egphttp.UserAgent,
			Referer:    Referer,
			Accept:     "application/json",
			MaxBody:    4 << 20,
			MaxRetries: 3,
			Backoff:    time.Second,
			MaxBackoff: 30 * time.Second,
		},
		URL: endpoint,
	}
}

// FetchProject implements domain.ProjectSource.
func (c *Client) FetchProject(ctx context.Context, id string) (domain.Project, error) {
	if !domain.ValidProjectID(id) {
		return domain.Project{}, domain.InvalidProjectID(id)
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return domain.Project{}, fmt.Errorf("e-GP project url: %w", err)
	}
	q := u.Query()
	q.Set("projectId", id)
	u.RawQuery = q.Encode()
	body, err := c.get(ctx, u.String())
	if err != nil {
		return domain.Project{}, err
	}
	return Parse(body, id)
}

// get maps e-GP's 404 to "not at the source".
func (c *Client) get(ctx context.Context, u string) ([]byte, error) {
	body, err := c.Get(ctx, u)
	if errors.Is(err, egphttp.ErrNotFound) {
		return nil, domain.ErrNotAtSource
	}
	return body, err
}

// flex accepts a JSON string, number, boolean or null as text.
type flex string

func (f *flex) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*f = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flex(strings.TrimSpace(s))
	default:
		*f = flex(b)
	}
	return nil
}

type detail struct {
	ProjectID     flex `json:"projectId"`
	ProjectName   flex `json:"projectName"`
	DeptID        flex `json:"deptId"`
	DeptName      flex `json:"deptName"`
	DeptSubID     flex `json:"deptSubId"`
	DeptSubName   flex `json:"deptSubName"`
	MethodID      flex `json:"methodId"`
	TypeID        flex `json:"typeId"`
	ProjectMoney  flex `json:"projectMoney"`
	PriceBuild    flex `json:"priceBuild"`
	PriceAgree    flex `json:"priceAgree"`
	AnnounceDate  flex `json:"announceDate"`
	StepID        flex `json:"stepId"`
	ProjectStatus flex `json:"projectStatus"`
	AnnounceType  flex `json:"announceType"`
	BudgetYear    flex `json:"budgetYear"`
}

type envelope struct {
	Data  json.RawMessage `json:"data"`
	Token *bool           `json:"validateAnnouncementToken"`
	detail
}

// StepNames are the Thai labels of the process5 step ids (EGP.md §1.5),
// kept as the published project status.
var StepNames = map[string]string{
	"M03": "หนังสือเชิญชวน/ประกาศเชิญชวน",
	"W03": "อนุมัติสั่งซื้อสั่งจ้างและประกาศผู้ชนะการเสนอราคา",
	"X01": "ประกาศผู้ชนะการเสนอราคา",
	"I03": "จัดทำสัญญา/บริหารสัญญา",
	"C01": "ข้อมูลสาระสำคัญในสัญญา",
}

// Parse reads a getProjectDetail answer for project id.
func Parse(body []byte, id string) (domain.Project, error) {
	if !utf8.Valid(body) {
		dec, err := charmap.Windows874.NewDecoder().Bytes(body)
		if err != nil {
			return domain.Project{}, fmt.Errorf("%w: e-GP answer is neither UTF-8 nor Windows-874", ErrPermanent)
		}
		body = dec
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return domain.Project{}, fmt.Errorf("%w: e-GP answer is not the expected JSON: %v", ErrPermanent, err)
	}
	if env.Token != nil && !*env.Token {
		return domain.Project{}, fmt.Errorf("%w: e-GP asks for an announcement token (validateAnnouncementToken false)", ErrPermanent)
	}
	d := env.detail
	if raw := bytes.TrimSpace(env.Data); len(raw) > 0 {
		if raw[0] != '{' {
			// null, [], "" or false: nothing for this id
			return domain.Project{}, domain.ErrNotAtSource
		}
		d = detail{}
		if err := json.Unmarshal(raw, &d); err != nil {
			return domain.Project{}, fmt.Errorf("%w: e-GP data is not the expected JSON: %v", ErrPermanent, err)
		}
	}
	return project(d, id)
}

func project(d detail, id string) (domain.Project, error) {
	got, _ := domain.NormalizeProjectID(string(d.ProjectID))
	if got == "" && d.ProjectName == "" {
		return domain.Project{}, domain.ErrNotAtSource
	}
	if got != "" && got != id {
		return domain.Project{}, fmt.Errorf("%w: asked for project %s, e-GP answered %s", ErrPermanent, id, got)
	}
	p := domain.Project{
		ID:            id,
		Name:          collapse(string(d.ProjectName)),
		AgencyCode:    string(d.DeptID),
		AgencyName:    collapse(string(d.DeptName)),
		SubAgencyCode: string(d.DeptSubID),
		SubAgencyName: collapse(string(d.DeptSubName)),
		MethodCode:    string(d.MethodID),
		WorkTypeCode:  string(d.TypeID),
		Source:        domain.SourceEGPProject,
	}
	if len(p.AgencyCode) == 4 {
		p.MinistryCode = p.AgencyCode[:2]
	}
	var err error
	if p.Budget, err = amount("projectMoney", d.ProjectMoney); err != nil {
		return p, err
	}
	if p.ReferencePrice, err = amount("priceBuild", d.PriceBuild); err != nil {
		return p, err
	}
	if p.AgreedPrice, err = amount("priceAgree", d.PriceAgree); err != nil {
		return p, err
	}
	if y, err := strconv.Atoi(string(d.BudgetYear)); err == nil && y > 2400 && y < 2800 {
		p.BudgetYear = y
	}
	if name, ok := StepNames[string(d.StepID)]; ok {
		p.RawStatus = name
	}
	if d.ProjectStatus == "R" {
		p.RawStatus = "ยกเลิกโครงการ"
	}
	typ := domain.AnnouncementType(d.AnnounceType)
	if typ.Valid() {
		if when, ok := parseDate(string(d.AnnounceDate)); ok {
			p.Announcements = []domain.Announcement{{Type: typ, Name: typ.NameTh(), Date: when}}
		}
	}
	return p, nil
}

// amount reads a money field; absent, empty and zero are "not published".
func amount(field string, v flex) (*domain.Money, error) {
	s := strings.TrimSpace(string(v))
	if s == "" {
		return nil, nil
	}
	m, err := domain.ParseBaht(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q is not an amount", ErrPermanent, field, s)
	}
	if m == 0 {
		return nil, nil
	}
	return &m, nil
}

var isoPrefix = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

// parseDate reads an e-GP date as a Bangkok calendar date.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) >= 12 {
		t := time.UnixMilli(ms).In(domain.Bangkok)
		return domain.Date(t.Year(), t.Month(), t.Day()), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.In(domain.Bangkok)
			return domain.Date(t.Year(), t.Month(), t.Day()), true
		}
	}
	if isoPrefix.MatchString(s) {
		// a date, or a date-time without zone: Bangkok local
		if t, err := time.ParseInLocation(time.DateOnly, s[:10], domain.Bangkok); err == nil {
			return t, true
		}
	}
	t, ok, err := domain.ParseThaiDate(s)
	return t, ok && err == nil
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
