package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"bidradar/pkg/apperr"
	"bidradar/services/projects/internal/domain"
)

// Extras are the dependencies of scrape, update-project-smart, saved
// criteria and status indicators. A use case whose dependency is missing
// answers Unavailable.
type Extras struct {
	Source    domain.ProjectSource
	Cooldowns domain.CooldownStore
	Criteria  domain.SavedCriteriaRepository
	Quota     domain.Quota
	// Plans answers what the user's tier holds (saved searches, exports).
	Plans domain.Plans
	// Cooldown between two refreshes of one project (update-project-smart);
	// default 10 minutes.
	Cooldown time.Duration
	// Concurrency bounds the parallel source requests of one scrape; default 4.
	Concurrency int
	// Pace is the least time between two source requests of this process;
	// default 250 ms.
	Pace time.Duration
}

// Configure sets the extra dependencies, with defaults for zero values.
func (a *App) Configure(x Extras) {
	if x.Cooldown <= 0 {
		x.Cooldown = 10 * time.Minute
	}
	if x.Concurrency <= 0 {
		x.Concurrency = 4
	}
	if x.Pace < 0 {
		x.Pace = 0
	}
	a.x = x
	a.pace = pacer{every: x.Pace}
}

// SetClock replaces the clock (tests).
func (a *App) SetClock(now func() time.Time) { a.now = now }

// MaxScrapeIDs is the most project ids one scrape takes.
const MaxScrapeIDs = 100

// Scrape outcomes per id.
const (
	ScrapeCreated   = "created"
	ScrapeUpdated   = "updated"
	ScrapeUnchanged = "unchanged"
	ScrapeNotFound  = "not_found"
	ScrapeFailed    = "failed"
)

// ScrapeResult is the outcome for one id.
type ScrapeResult struct {
	ProjectID string
	Status    string
	Detail    string
}

var (
	errSourceOff = apperr.New(apperr.Unavailable, "source-unavailable", "Service is currently unavailable. Please try again later.")
	errNoIDs     = apperr.New(apperr.InvalidArgument, "project-ids-required",
		"project_ids is required: give at least one 11-digit e-GP project id (repeat project_ids or separate ids with commas)")
)

// ParseProjectIDs reads the ids of a scrape: repeated values and
// comma-separated lists, trimmed, Thai digits folded, duplicates dropped.
// Each must be exactly 11 ASCII digits; at most MaxScrapeIDs distinct ids.
func ParseProjectIDs(raw []string) ([]string, error) {
	var ids []string
	for _, v := range raw {
		for _, s := range strings.Split(v, ",") {
			if strings.TrimSpace(s) == "" {
				continue
			}
			id, ok := domain.NormalizeProjectID(s)
			if !ok {
				return nil, apperr.New(apperr.InvalidArgument, "invalid-project-id",
					fmt.Sprintf("project id %s is invalid: an e-GP project id is exactly 11 digits (e.g. 69099693138)", strconv.Quote(strings.TrimSpace(s))))
			}
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, errNoIDs
	}
	if len(ids) > MaxScrapeIDs {
		return nil, apperr.New(apperr.InvalidArgument, "too-many-project-ids",
			fmt.Sprintf("at most %d project ids per call, got %d", MaxScrapeIDs, len(ids)))
	}
	return ids, nil
}

// pacer spaces requests to the source: at most one start per every.
type pacer struct {
	mu    sync.Mutex
	every time.Duration
	next  time.Time
}

func (p *pacer) wait(ctx context.Context) error {
	if p.every <= 0 {
		return ctx.Err()
	}
	p.mu.Lock()
	now := time.Now()
	at := p.next
	if at.Before(now) {
		at = now
	}
	p.next = at.Add(p.every)
	p.mu.Unlock()
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Scrape fetches each project from the e-GP source and upserts it through
// the ingestion path (merge, outbox events), recorded as one ingestion run.
// Each id asked of e-GP is one live look-up of the caller's tier
// (explore_live_search, docs/product.md#tiers-and-plan-limits): none in the
// tier is 403 upgrade_required, too few left today is 409 'Limit reached'
// and nothing is fetched.
func (a *App) Scrape(ctx context.Context, c domain.Caller, raw []string) ([]ScrapeResult, error) {
	ids, err := ParseProjectIDs(raw)
	if err != nil {
		return nil, err
	}
	if a.x.Source == nil {
		return nil, errSourceOff
	}
	if err := a.canLiveSearch(ctx, c); err != nil {
		return nil, err
	}
	if _, err := a.consumeN(ctx, c, domain.QuotaExploreLiveSearch, len(ids)); err != nil {
		return nil, err
	}
	target := "scrape " + strings.Join(ids, ",")
	if len(ids) > 5 {
		target = "scrape " + strings.Join(ids[:5], ",") + " … (" + strconv.Itoa(len(ids)) + " ids)"
	}
	run, err := a.startRun(ctx, target)
	if err != nil {
		return nil, err
	}
	out := make([]ScrapeResult, len(ids))
	stats := make([]domain.UpsertStats, len(ids))
	sem := make(chan struct{}, a.x.Concurrency)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i] = ScrapeResult{ProjectID: id, Status: ScrapeFailed, Detail: "ยกเลิกคำขอ"}
				return
			}
			defer func() { <-sem }()
			out[i], stats[i] = a.refreshOne(ctx, run.ID, id)
		}()
	}
	wg.Wait()
	for _, st := range stats {
		run.Stats.Add(st)
	}
	a.finishRun(ctx, &run, out)
	return out, nil
}

func (a *App) startRun(ctx context.Context, target string) (domain.IngestRun, error) {
	run := domain.IngestRun{Source: domain.SourceEGPProject, Target: target, StartedAt: a.now(), Status: "running"}
	id, err := a.runs.StartRun(ctx, run.Source, target, run.StartedAt)
	if err != nil {
		return run, err
	}
	run.ID = id
	return run, nil
}

func (a *App) finishRun(ctx context.Context, run *domain.IngestRun, res []ScrapeResult) {
	run.Status = "succeeded"
	for _, r := range res {
		switch r.Status {
		case ScrapeFailed:
			run.Errors++
			run.ErrorLog = append(run.ErrorLog, r.ProjectID+": "+r.Detail)
		case ScrapeNotFound:
			run.ErrorLog = append(run.ErrorLog, r.ProjectID+": not found at e-GP")
		}
	}
	if run.Errors > 0 && run.Errors == len(res) {
		run.Status = "failed"
	}
	run.FinishedAt = a.now()
	if err := a.runs.FinishRun(context.WithoutCancel(ctx), *run); err != nil {
		a.log.ErrorContext(ctx, "record scrape run", "run", run.ID, "err", err)
	}
	a.log.InfoContext(ctx, "e-GP project refresh finished", "run", run.ID, "target", run.Target,
		"seen", run.Stats.Seen, "created", run.Stats.Created, "updated", run.Stats.Updated, "errors", run.Errors)
}

// refreshOne fetches one project and upserts it.
func (a *App) refreshOne(ctx context.Context, runID int64, id string) (ScrapeResult, domain.UpsertStats) {
	res := ScrapeResult{ProjectID: id}
	if err := a.pace.wait(ctx); err != nil {
		res.Status, res.Detail = ScrapeFailed, "ยกเลิกคำขอ"
		return res, domain.UpsertStats{}
	}
	p, err := a.x.Source.FetchProject(ctx, id)
	switch {
	case errors.Is(err, domain.ErrNotAtSource):
		res.Status, res.Detail = ScrapeNotFound, "ไม่พบโครงการนี้ใน e-GP"
		return res, domain.UpsertStats{}
	case err != nil:
		a.log.WarnContext(ctx, "e-GP project fetch failed", "project", id, "err", err)
		res.Status, res.Detail = ScrapeFailed, "ดึงข้อมูลจาก e-GP ไม่สำเร็จ: "+err.Error()
		return res, domain.UpsertStats{}
	}
	// The same step may already be known from the feed with its document
	// link: keep that one rather than a link-less twin.
	if cur, err := a.repo.Get(ctx, id); err == nil {
		p.Announcements = slices.DeleteFunc(p.Announcements, func(n domain.Announcement) bool {
			return slices.ContainsFunc(cur.Announcements, func(o domain.Announcement) bool {
				return o.Type == n.Type && domain.DateKey(o.Date).Equal(domain.DateKey(n.Date))
			})
		})
	}
	st, err := a.repo.Upsert(ctx, runID, []domain.Project{p}, a.now())
	switch {
	case err != nil:
		a.log.ErrorContext(ctx, "upsert scraped project", "project", id, "err", err)
		res.Status, res.Detail = ScrapeFailed, "บันทึกข้อมูลไม่สำเร็จ"
	case st.Created > 0:
		res.Status, res.Detail = ScrapeCreated, "เพิ่มโครงการใหม่แล้ว"
	case st.Updated > 0:
		res.Status, res.Detail = ScrapeUpdated, "อัปเดตข้อมูลโครงการแล้ว"
	default:
		res.Status, res.Detail = ScrapeUnchanged, "ข้อมูลเป็นปัจจุบันแล้ว"
	}
	return res, st
}

// ScrapeMessage summarises a scrape in Thai.
func ScrapeMessage(res []ScrapeResult) string {
	n := map[string]int{}
	for _, r := range res {
		n[r.Status]++
	}
	return fmt.Sprintf("ดึงข้อมูล %d โครงการ: ใหม่ %d, อัปเดต %d, ไม่เปลี่ยนแปลง %d, ไม่พบ %d, ไม่สำเร็จ %d",
		len(res), n[ScrapeCreated], n[ScrapeUpdated], n[ScrapeUnchanged], n[ScrapeNotFound], n[ScrapeFailed])
}

// Smart update outcomes.
const (
	SmartSuccess  = "success"
	SmartCooldown = "cooldown"
	SmartError    = "error"
)

// SmartResult is the answer of update-project-smart.
type SmartResult struct {
	Message     string
	Status      string // success, cooldown, error
	CanUpdate   bool
	WaitSeconds int
	Action      string // none, wait, updated
}

// UpdateProjectSmart refreshes one known project from e-GP unless it was
// refreshed less than the cooldown ago (by anyone, on any replica). A
// refresh that goes to e-GP is one live look-up of the caller's tier
// (explore_live_search); an answer within the cooldown spends none.
func (a *App) UpdateProjectSmart(ctx context.Context, c domain.Caller, raw string) (SmartResult, error) {
	id, ok := domain.NormalizeProjectID(raw)
	if !ok {
		return SmartResult{}, apperr.New(apperr.InvalidArgument, "invalid-project-id",
			fmt.Sprintf("project id %s is invalid: an e-GP project id is exactly 11 digits", strconv.Quote(strings.TrimSpace(raw))))
	}
	if a.x.Source == nil || a.x.Cooldowns == nil {
		return SmartResult{}, errSourceOff
	}
	if err := a.canLiveSearch(ctx, c); err != nil {
		return SmartResult{}, err
	}
	if _, err := a.repo.Get(ctx, id); err != nil {
		if errors.Is(err, domain.ErrProjectNotFound) {
			return SmartResult{}, apperr.Wrap(err, apperr.NotFound, "project-not-found", "Project not found")
		}
		return SmartResult{}, err
	}
	now := a.now()
	won, last, prev, err := a.x.Cooldowns.Claim(ctx, id, now, a.x.Cooldown)
	if err != nil {
		return SmartResult{}, err
	}
	if !won {
		wait := int(math.Ceil((a.x.Cooldown - now.Sub(last)).Seconds()))
		wait = max(wait, 1)
		return SmartResult{
			Message: fmt.Sprintf("โครงการนี้เพิ่งอัปเดตไปแล้ว กรุณารออีก %s ก่อนอัปเดตอีกครั้ง", thaiDuration(wait)),
			Status:  SmartCooldown, WaitSeconds: wait, Action: "wait",
		}, nil
	}
	if _, err := a.consumeN(ctx, c, domain.QuotaExploreLiveSearch, 1); err != nil {
		if rerr := a.x.Cooldowns.Release(context.WithoutCancel(ctx), id, now, prev); rerr != nil {
			a.log.ErrorContext(ctx, "release refresh cooldown", "project", id, "err", rerr)
		}
		return SmartResult{}, err
	}
	run, err := a.startRun(ctx, "update-project-smart "+id)
	if err != nil {
		_ = a.x.Cooldowns.Release(context.WithoutCancel(ctx), id, now, prev)
		return SmartResult{}, err
	}
	res, st := a.refreshOne(ctx, run.ID, id)
	run.Stats.Add(st)
	a.finishRun(ctx, &run, []ScrapeResult{res})
	cool := int(a.x.Cooldown.Seconds())
	switch res.Status {
	case ScrapeFailed:
		// A failure does not use up the cooldown.
		if err := a.x.Cooldowns.Release(context.WithoutCancel(ctx), id, now, prev); err != nil {
			a.log.ErrorContext(ctx, "release refresh cooldown", "project", id, "err", err)
		}
		return SmartResult{Message: "ไม่สามารถดึงข้อมูลล่าสุดจาก e-GP ได้ในขณะนี้ กรุณาลองใหม่ภายหลัง",
			Status: SmartError, CanUpdate: true, Action: "none"}, nil
	case ScrapeNotFound:
		return SmartResult{Message: "ไม่พบโครงการนี้ใน e-GP ข้อมูลเดิมยังคงอยู่",
			Status: SmartSuccess, WaitSeconds: cool, Action: "none"}, nil
	case ScrapeCreated, ScrapeUpdated:
		return SmartResult{Message: "อัปเดตข้อมูลโครงการจาก e-GP แล้ว",
			Status: SmartSuccess, WaitSeconds: cool, Action: "updated"}, nil
	default:
		return SmartResult{Message: "ข้อมูลโครงการเป็นปัจจุบันแล้ว",
			Status: SmartSuccess, WaitSeconds: cool, Action: "none"}, nil
	}
}

func thaiDuration(sec int) string {
	if sec < 60 {
		return strconv.Itoa(sec) + " วินาที"
	}
	m, s := sec/60, sec%60
	if s == 0 {
		return strconv.Itoa(m) + " นาที"
	}
	return strconv.Itoa(m) + " นาที " + strconv.Itoa(s) + " วินาที"
}
