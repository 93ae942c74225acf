// Package egprss reads the e-GP announcement RSS feed
// (EPROCRssFeedWeb/egpannouncerss.xml): Windows-874 bytes, both the 2022
// format (empty description, project id in the link) and the 2026 format
// ("<projectId>, <method>, <announcement label>" in the description),
// pubDate as a Bangkok calendar date, duplicate items merged.
package egprss

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"golang.org/x/text/encoding/charmap"

	"bidradar/services/projects/internal/adapters/egphttp"
	"bidradar/services/projects/internal/domain"
)

// DefaultBaseURL is the current host of the feed.
const DefaultBaseURL = "https://process.gprocurement.go.th/EPROCRssFeedWeb/egpannouncerss.xml"

type rssDoc struct {
	Channel struct {
		Title         string    `xml:"title"`
		LastBuildDate string    `xml:"lastBuildDate"`
		Items         []rssItem `xml:"item"`
	} `xml:"channel"`
}

type rssItem struct {
	Title       string `xml:"title"`
	Link        string `xml:"link"`
	Description string `xml:"description"`
	PubDate     string `xml:"pubDate"`
}

// Query is the filter of one feed request.
type Query struct {
	DeptID      string // agency code (deptId)
	AnounceType string // announcement type code (the parameter is spelled anounceType)
	MethodID    string
}

// URL builds the request URL on base.
func (q Query) URL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("feed base url: %w", err)
	}
	v := u.Query()
	if q.DeptID != "" {
		v.Set("deptId", q.DeptID)
	}
	if q.AnounceType != "" {
		v.Set("anounceType", q.AnounceType)
	}
	if q.MethodID != "" {
		v.Set("methodId", q.MethodID)
	}
	u.RawQuery = v.Encode()
	return u.String(), nil
}

// QueryFromURL reads the filter parameters back from a request URL, so that
// a feed fetched by URL still knows its agency and announcement type.
func QueryFromURL(raw string) Query {
	u, err := url.Parse(raw)
	if err != nil {
		return Query{}
	}
	v := u.Query()
	return Query{DeptID: v.Get("deptId"), AnounceType: v.Get("anounceType"), MethodID: v.Get("methodId")}
}

// Feed is a parsed response.
type Feed struct {
	LastBuild time.Time
	Projects  []domain.Project // one per project id, duplicates merged
	Items     int              // items in the response
	Skipped   []domain.RecordError
}

var elevenDigits = regexp.MustCompile(`\b\d{11}\b`)

// Parse decodes a feed body. q is the request filter (it supplies the agency
// code and, when the item itself does not say, the announcement type).
func Parse(r io.Reader, q Query) (Feed, error) {
	dec := xml.NewDecoder(r)
	dec.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(strings.TrimSpace(label)) {
		case "windows-874", "cp874", "tis-620", "tis620", "x-windows-874", "iso-8859-11":
			return charmap.Windows874.NewDecoder().Reader(in), nil
		case "utf-8", "utf8":
			return in, nil
		}
		return nil, fmt.Errorf("unsupported feed encoding %q", label)
	}
	var doc rssDoc
	if err := dec.Decode(&doc); err != nil {
		return Feed{}, fmt.Errorf("decode e-GP feed: %w", err)
	}
	f := Feed{Items: len(doc.Channel.Items)}
	if t, err := parseBuildDate(doc.Channel.LastBuildDate); err == nil {
		f.LastBuild = t
	}
	byID := map[string]int{}
	for i, it := range doc.Channel.Items {
		p, err := item(it, q)
		if err != nil {
			f.Skipped = append(f.Skipped, domain.RecordError{Line: i + 1, Err: err})
			continue
		}
		if j, ok := byID[p.ID]; ok {
			merged, _, _ := domain.Merge(&f.Projects[j], p, time.Time{})
			f.Projects[j] = merged
			continue
		}
		byID[p.ID] = len(f.Projects)
		p.Derive()
		f.Projects = append(f.Projects, p)
	}
	for i := range f.Projects {
		// Merge collapses duplicate steps; keep it for single items too.
		p, _, _ := domain.Merge(nil, f.Projects[i], time.Time{})
		p.FirstSeen, p.LastSeen = time.Time{}, time.Time{}
		f.Projects[i] = p
	}
	return f, nil
}

// parseBuildDate reads "Thu, 04 Aug 2022 09:44:43 ICT" in Asia/Bangkok (Go
// would read the unknown "ICT" abbreviation as UTC).
func parseBuildDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, " ICT")
	return time.ParseInLocation("Mon, 02 Jan 2006 15:04:05", s, domain.Bangkok)
}

func item(it rssItem, q Query) (domain.Project, error) {
	title := collapse(it.Title)
	desc := collapse(it.Description)
	link := strings.TrimSpace(it.Link)
	var id, methodName, label string
	if desc != "" {
		parts := strings.SplitN(desc, ",", 3)
		id = strings.TrimSpace(parts[0])
		if len(parts) > 1 {
			methodName = strings.TrimSpace(parts[1])
		}
		if len(parts) > 2 {
			label = strings.TrimSpace(parts[2])
		}
	}
	var linkQ url.Values
	if u, err := url.Parse(link); err == nil {
		linkQ = u.Query()
	}
	if !domain.ValidProjectID(id) {
		id = linkQ.Get("projectId")
	}
	if !domain.ValidProjectID(id) {
		id = elevenDigits.FindString(desc + " " + link)
	}
	if !domain.ValidProjectID(id) {
		return domain.Project{}, fmt.Errorf("no 11-digit project id in item %q", title)
	}
	date, ok, err := domain.ParseThaiDate(it.PubDate)
	if err != nil || !ok {
		return domain.Project{}, fmt.Errorf("project %s: pubDate %q", id, it.PubDate)
	}
	typ := announcementType(label, linkQ.Get("templateType"), q.AnounceType, title)
	p := domain.Project{
		ID:         id,
		Name:       projectName(title),
		AgencyCode: q.DeptID,
		Source:     domain.SourceRSS,
	}
	if len(q.DeptID) == 4 {
		p.MinistryCode = q.DeptID[:2]
	}
	if code, ok := domain.MethodFromName(methodName); ok {
		p.MethodCode = code
	} else if code, ok := methodFromTitle(title); ok {
		p.MethodCode = code
	} else if q.MethodID != "" {
		p.MethodCode = q.MethodID
	}
	if methodName != "" {
		p.MethodName = methodName
	}
	if typ != "" {
		p.Announcements = []domain.Announcement{{Type: typ, Name: labelOr(label, typ), Date: date, Link: link}}
	}
	return p, nil
}

func labelOr(label string, t domain.AnnouncementType) string {
	if label != "" {
		return label
	}
	return t.NameTh()
}

// announcementType takes the type from the description label, then the
// link's templateType (2022 format), then the requested anounceType, and
// only last from the title.
func announcementType(label, templateType, requested, title string) domain.AnnouncementType {
	if t, ok := domain.AnnouncementTypeFromLabel(label); ok {
		return t
	}
	if t := domain.AnnouncementType(templateType); t.Valid() {
		return t
	}
	if t := domain.AnnouncementType(requested); t.Valid() {
		return t
	}
	for _, r := range titlePrefixes {
		if strings.HasPrefix(title, r.prefix) {
			return r.t
		}
	}
	return ""
}

var titlePrefixes = []struct {
	prefix string
	t      domain.AnnouncementType
}{
	{"ยกเลิกประกาศเชิญชวน", domain.AnnInvitationVoid},
	{"เปลี่ยนแปลงประกาศเชิญชวน", domain.AnnInvitationEdit},
	{"ยกเลิกประกาศรายชื่อผู้ชนะ", domain.AnnWinnerCancelled},
	{"ยกเลิกประกาศผู้ชนะ", domain.AnnWinnerCancelled},
	{"เปลี่ยนแปลงประกาศรายชื่อผู้ชนะ", domain.AnnWinnerChanged},
	{"เปลี่ยนแปลงประกาศผู้ชนะ", domain.AnnWinnerChanged},
	{"ประกาศรายชื่อผู้ชนะ", domain.AnnWinner},
	{"ประกาศผู้ชนะ", domain.AnnWinner},
	{"ประกาศราคากลาง", domain.AnnReferencePrice},
	{"ร่างเอกสารประกวดราคา", domain.AnnDraft},
	{"ประกาศแผนการจัดซื้อจัดจ้าง", domain.AnnPlan},
	{"แผนการจัดซื้อจัดจ้าง", domain.AnnPlan},
}

// projectName strips an announcement prefix from a title: the name of the
// project is the same across its steps.
func projectName(title string) string {
	for _, r := range titlePrefixes {
		if rest, ok := strings.CutPrefix(title, r.prefix); ok && strings.TrimSpace(rest) != "" {
			return strings.TrimSpace(rest)
		}
	}
	return title
}

func methodFromTitle(title string) (string, bool) {
	for _, sep := range []string{"ด้วยวิธี", "โดยวิธี"} {
		if i := strings.LastIndex(title, sep); i >= 0 {
			name := strings.TrimSpace(title[i+len(sep):])
			if code, ok := domain.MethodFromName(name); ok {
				return code, true
			}
			if code, ok := domain.MethodFromName("วิธี" + name); ok {
				return code, true
			}
		}
	}
	return "", false
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// Client fetches feed pages politely (see egphttp): a timeout, a Referer (the
// e-GP WAF wants one), retries with backoff and jitter on network errors, 429
// and 5xx.
type Client struct {
	egphttp.Getter
	BaseURL string
}

// NewClient returns a client for base (DefaultBaseURL when empty).
func NewClient(base string) *Client {
	if base == "" {
		base = DefaultBaseURL
	}
	return &Client{
		Getter: egphttp.Getter{
			HTTP:       &http.Client{Timeout: 30 * time.Second},
			UserAgent:  egphttp.UserAgent,
			Referer:    "https://process.gprocurement.go.th/",
			Accept:     "application/rss+xml, application/xml, text/xml",
			MaxRetries: 4,
			Backoff:    2 * time.Second,
			MaxBackoff: time.Minute,
		},
		BaseURL: base,
	}
}

// ErrPermanent marks a response that retrying will not fix.
var ErrPermanent = egphttp.ErrPermanent

// Fetch gets and parses one feed query.
func (c *Client) Fetch(ctx context.Context, q Query) (Feed, error) {
	u, err := q.URL(c.BaseURL)
	if err != nil {
		return Feed{}, err
	}
	return c.FetchURL(ctx, u, q)
}

// FetchURL gets and parses the feed at u.
func (c *Client) FetchURL(ctx context.Context, u string, q Query) (Feed, error) {
	body, err := c.Get(ctx, u)
	if err != nil {
		return Feed{}, err
	}
	return Parse(bytes.NewReader(body), q)
}

// Source is the ingestion adapter for one feed URL.
type Source struct {
	Client *Client
	URL    string
}

// Name implements domain.ObservationSource.
func (s Source) Name() string { return domain.SourceRSS }

// Each implements domain.ObservationSource.
func (s Source) Each(ctx context.Context, fn func(domain.Project) error, onErr func(domain.RecordError)) error {
	f, err := s.Client.FetchURL(ctx, s.URL, QueryFromURL(s.URL))
	if err != nil {
		return err
	}
	for _, e := range f.Skipped {
		onErr(e)
	}
	for _, p := range f.Projects {
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// Poller polls the feed per agency × announcement type (agency-scoped
// queries stay under the 20-item cap), waiting Pace between requests.
type Poller struct {
	Client   *Client
	Agencies []string
	Types    []string // default: the nine announcement types
	Pace     time.Duration
	Interval time.Duration // between rounds
	// Handle receives each fetched feed; errors are logged by the caller's
	// OnError and do not stop the round.
	Handle  func(ctx context.Context, q Query, f Feed) error
	OnError func(q Query, err error)
}

// Round runs one pass over every agency × type.
func (p *Poller) Round(ctx context.Context) error {
	types := p.Types
	if len(types) == 0 {
		for _, t := range domain.AnnouncementTypes {
			types = append(types, t.Code)
		}
	}
	first := true
	for _, dept := range p.Agencies {
		for _, t := range types {
			if !first {
				if err := p.Client.Sleep(ctx, p.Pace); err != nil {
					return err
				}
			}
			first = false
			q := Query{DeptID: dept, AnounceType: t}
			f, err := p.Client.Fetch(ctx, q)
			if err == nil {
				err = p.Handle(ctx, q, f)
			}
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if p.OnError != nil {
					p.OnError(q, err)
				}
			}
		}
	}
	return nil
}

// Run repeats Round every Interval until ctx ends.
func (p *Poller) Run(ctx context.Context) error {
	for {
		if err := p.Round(ctx); err != nil {
			return err
		}
		if err := p.Client.Sleep(ctx, p.Interval); err != nil {
			return err
		}
	}
}
