package projectssvc

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/services/projects/internal/adapters/egprss"
	"bidradar/services/projects/internal/adapters/ocds"
	"bidradar/services/projects/internal/adapters/opendatacsv"
	"bidradar/services/projects/internal/domain"
)

// DefaultIngestHosts are the hosts an admin ingest may fetch from when
// INGEST_ALLOWED_HOSTS is unset: e-GP's own.
var DefaultIngestHosts = []string{"process.gprocurement.go.th", "process3.gprocurement.go.th", "gprocurement.go.th", "www.gprocurement.go.th"}

// IngestFetchTimeout bounds one admin fetch (it runs inside the request).
const IngestFetchTimeout = 5 * time.Second

// ingestSources is the one place that chooses the ingestion adapters for an
// admin ingest. An operator's URL is fetched only over http(s) from an
// allowlisted host, so the endpoint cannot be turned against the cluster's
// own services (SSRF) or the file system.
type ingestSources struct {
	hosts  map[string]bool
	client *egprss.Client
}

func newIngestSources(rssBase string, hosts []string) *ingestSources {
	c := egprss.NewClient(rssBase)
	c.HTTP = &http.Client{Timeout: IngestFetchTimeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 3 {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	c.MaxRetries = 0 // the operator is waiting: one attempt, then an answer
	s := &ingestSources{hosts: map[string]bool{}, client: c}
	for _, h := range hosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			s.hosts[h] = true
		}
	}
	// A redirect must stay on the allowlist too.
	next := c.HTTP.CheckRedirect
	c.HTTP.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := s.allowed(req.URL); err != nil {
			return err
		}
		return next(req, via)
	}
	return s
}

var errIngestURL = apperr.New(apperr.InvalidArgument, "ingest-url-not-allowed",
	"url must be an http(s) address on an allowed e-GP host (INGEST_ALLOWED_HOSTS)")

func (s *ingestSources) allowed(u *url.URL) error {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || !s.hosts[strings.ToLower(u.Hostname())] {
		return errIngestURL
	}
	return nil
}

// Open implements ports.IngestSources.
func (s *ingestSources) Open(kind, target string, content []byte) (domain.ObservationSource, error) {
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(content)), nil }
	switch kind {
	case "rss":
		if target == "" {
			return nil, apperr.New(apperr.InvalidArgument, "url-required", "url is required for rss")
		}
		u, err := url.Parse(target)
		if err != nil {
			return nil, errIngestURL
		}
		if err := s.allowed(u); err != nil {
			return nil, err
		}
		return egprss.Source{Client: s.client, URL: target}, nil
	case "csv":
		return &opendatacsv.Source{Open: open}, nil
	case "ocds":
		return ocds.Source{Open: open}, nil
	}
	return nil, apperr.New(apperr.InvalidArgument, "bad-source", "source must be rss, csv or ocds")
}
