package ports

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	interestsv1 "bidradar/gen/interests/v1"
	marketv1 "bidradar/gen/market/v1"
	projectsv1 "bidradar/gen/projects/v1"
	teamsv1 "bidradar/gen/teams/v1"
	"bidradar/pkg/events"
	"bidradar/services/notification/internal/app"
	"bidradar/services/notification/internal/domain"
)

// Events turns the events of other services into use-case calls (a typed
// handler each, for events.On). An event that names no project, a user
// that is not a user id or another impossible value is permanent: it is
// terminated (and dead-lettered), never retried.
type Events struct {
	app    *app.App
	owners domain.SearchOwners
}

// NewEvents returns the event handlers; owners names the searches of
// project.matched events that carry keys only (nil: such events fail, and
// are retried).
func NewEvents(a *app.App, owners domain.SearchOwners) *Events {
	return &Events{app: a, owners: owners}
}

// ProjectMatched handles projects.v1.ProjectMatched: the instant alerts of
// the searches a project newly matched.
func (e *Events) ProjectMatched(ctx context.Context, ev *projectsv1.ProjectMatched, m events.Meta) error {
	p := ev.GetProject()
	if p.GetProjectId() == "" {
		return fmt.Errorf("project.matched: %w: no project id", events.ErrPermanent)
	}
	ms, err := projectMatches(ev)
	if err != nil {
		return err
	}
	if keys := ev.GetCriteriaKeys(); len(keys) > 0 {
		named, err := e.namedMatches(ctx, keys, ev.GetCriteriaVersion())
		if err != nil {
			return err
		}
		ms = append(ms, named...)
	}
	mp := domain.MatchedProject{ID: p.GetProjectId(), Name: p.GetProjectName(), Agency: p.GetAgencyName(), BudgetSatang: p.BudgetSatang}
	if mp.Name == "" {
		mp.Name = "โครงการ " + mp.ID
	}
	return e.app.ProjectMatched(ctx, m.EventID, mp, ms)
}

// ImportMatched handles projects.v1.ImportMatched: some users' new matches
// of one import, each user told in one notification (an event of older
// producers carries one user, in user_id and project_ids). A user id that
// is not one is left out.
func (e *Events) ImportMatched(ctx context.Context, ev *projectsv1.ImportMatched, m events.Meta) error {
	if ev.GetImportId() <= 0 {
		return fmt.Errorf("import.matched: %w: import %d", events.ErrPermanent, ev.GetImportId())
	}
	named := make(map[string]domain.MatchedProject, len(ev.GetProjects()))
	for _, p := range ev.GetProjects() {
		mp := domain.MatchedProject{ID: p.GetProjectId(), Name: p.GetProjectName(), Agency: p.GetAgencyName(), BudgetSatang: p.BudgetSatang}
		if mp.Name == "" {
			mp.Name = "โครงการ " + mp.ID
		}
		named[mp.ID] = mp
	}
	users := ev.GetUsers()
	if ev.GetUserId() != "" {
		users = append(users, &projectsv1.ImportUser{UserId: ev.GetUserId(), ProjectIds: ev.GetProjectIds()})
	}
	out := make([]domain.ImportUser, 0, len(users))
	for _, u := range users {
		if !domain.ValidID(u.GetUserId()) || len(u.GetProjectIds()) == 0 {
			continue
		}
		iu := domain.ImportUser{UserID: u.GetUserId(), ProjectIDs: u.GetProjectIds()}
		for _, id := range iu.ProjectIDs {
			p, ok := named[id]
			if !ok || len(iu.Named) == domain.ImportShown {
				break
			}
			iu.Named = append(iu.Named, p)
		}
		out = append(out, iu)
	}
	if len(out) == 0 {
		return fmt.Errorf("import.matched: %w: no user of import %d", events.ErrPermanent, ev.GetImportId())
	}
	return e.app.ImportMatched(ctx, m.EventID, ev.GetImportId(), out)
}

// CriteriaMatched handles projects.v1.CriteriaMatched: an overnight
// search's digest (or an instant match from an older producer).
func (e *Events) CriteriaMatched(ctx context.Context, ev *projectsv1.CriteriaMatched, m events.Meta) error {
	ps := make([]domain.MatchedProject, 0, len(ev.GetProjects()))
	for _, p := range ev.GetProjects() {
		ps = append(ps, domain.MatchedProject{ID: p.GetProjectId(), Name: p.GetProjectName(),
			Agency: p.GetAgencyName(), BudgetSatang: p.BudgetSatang})
	}
	if len(ps) == 0 { // an older producer: ids only
		for _, id := range ev.GetProjectIds() {
			ps = append(ps, domain.MatchedProject{ID: id, Name: "โครงการ " + id})
		}
	}
	if !domain.ValidID(ev.GetUserId()) {
		return fmt.Errorf("criteria.matched: %w: user %q", events.ErrPermanent, ev.GetUserId())
	}
	return e.app.CriteriaMatched(ctx, m.EventID, ev.GetUserId(), ev.GetCriteriaId(), ev.GetCriteriaName(), ev.GetRunKey(), ps, int(ev.GetProjectCount()))
}

// AnnouncementAdded handles projects.v1.AnnouncementAdded: a new step of a
// project its followers hear of.
func (e *Events) AnnouncementAdded(ctx context.Context, ev *projectsv1.AnnouncementAdded, m events.Meta) error {
	return e.app.AnnouncementAdded(ctx, m.EventID, ev.GetProjectId(), ev.GetProjectName(), ev.GetTypeName(), ev.GetDate())
}

// DeadlineApproaching handles projects.v1.DeadlineApproaching: tomorrow's
// deadline of a followed project.
func (e *Events) DeadlineApproaching(ctx context.Context, ev *projectsv1.DeadlineApproaching, m events.Meta) error {
	if ev.GetKind() != domain.DeadlineSubmission && ev.GetKind() != domain.DeadlineHearing {
		return fmt.Errorf("deadline.approaching: %w: kind %q", events.ErrPermanent, ev.GetKind())
	}
	return e.app.DeadlineApproaching(ctx, m.EventID, ev.GetProjectId(), ev.GetProjectName(), ev.GetKind(), ev.GetDate())
}

// CompetitorWon handles market.v1.CompetitorWon: a watched competitor's new awards.
func (e *Events) CompetitorWon(ctx context.Context, ev *marketv1.CompetitorWon, m events.Meta) error {
	if !domain.ValidID(ev.GetUserId()) {
		return fmt.Errorf("competitor.won: %w: user %q", events.ErrPermanent, ev.GetUserId())
	}
	awards := make([]domain.CompetitorAward, 0, len(ev.GetAwards()))
	for _, a := range ev.GetAwards() {
		awards = append(awards, domain.CompetitorAward{ProjectID: a.GetProjectId(), ProjectName: a.GetProjectName(),
			TaxID: a.GetTaxId(), WinnerName: a.GetWinnerName(), AgreedSatang: a.GetAgreedPriceSatang()})
	}
	return e.app.CompetitorWon(ctx, m.EventID, ev.GetUserId(), awards)
}

// InterestChanged handles interests.v1.InterestChanged (the follower list).
func (e *Events) InterestChanged(ctx context.Context, ev *interestsv1.InterestChanged, _ events.Meta) error {
	if !domain.ValidID(ev.GetUserId()) || ev.GetProjectId() == "" {
		return fmt.Errorf("interest.changed: %w: user %q project %q", events.ErrPermanent, ev.GetUserId(), ev.GetProjectId())
	}
	return e.app.InterestChanged(ctx, ev.GetUserId(), ev.GetProjectId(), ev.GetIsInterestToStepChk(), ev.GetIsFill20(), ev.GetArchived(), ev.GetOccurredAt().AsTime())
}

// MemberMentioned handles teams.v1.MemberMentioned: the mentioned member's bell.
func (e *Events) MemberMentioned(ctx context.Context, ev *teamsv1.MemberMentioned, m events.Meta) error {
	if !domain.ValidID(ev.GetUserId()) || ev.GetProjectId() == "" {
		return fmt.Errorf("member.mentioned: %w: user %q project %q", events.ErrPermanent, ev.GetUserId(), ev.GetProjectId())
	}
	return e.app.TeamMention(ctx, m.EventID, ev.GetUserId(), ev.GetTeamId(), ev.GetTeamName(), ev.GetProjectId(),
		ev.GetProjectName(), ev.GetAuthorUsername(), ev.GetExcerpt())
}

// ItemStageChanged handles teams.v1.ItemStageChanged: the item owner's bell.
func (e *Events) ItemStageChanged(ctx context.Context, ev *teamsv1.ItemStageChanged, m events.Meta) error {
	if ev.GetOwnerUserId() == "" {
		return nil
	}
	if !domain.ValidID(ev.GetOwnerUserId()) || ev.GetProjectId() == "" {
		return fmt.Errorf("item.stage_changed: %w: owner %q project %q", events.ErrPermanent, ev.GetOwnerUserId(), ev.GetProjectId())
	}
	return e.app.TeamStage(ctx, m.EventID, ev.GetOwnerUserId(), ev.GetTeamId(), ev.GetTeamName(), ev.GetProjectId(),
		ev.GetProjectName(), ev.GetFromStage(), ev.GetToStage())
}

// namedMatches looks up the owner and name of each search among keys (16
// bytes each), in their order, as of version asOf of the searches (the
// one they matched at): a search deleted since it matched is left out, and
// so is one whose owner is not a user id (the others are still told).
func (e *Events) namedMatches(ctx context.Context, keys []byte, asOf int64) ([]domain.Match, error) {
	if len(keys)%16 != 0 {
		return nil, fmt.Errorf("project.matched: %w: %d bytes of search keys", events.ErrPermanent, len(keys))
	}
	if e.owners == nil {
		return nil, fmt.Errorf("project.matched: no lookup of search owners (PROJECTS_TARGET)")
	}
	ks := make([][16]byte, len(keys)/16)
	for i := range ks {
		ks[i] = [16]byte(keys[16*i : 16*i+16])
	}
	owners, err := e.owners.Owners(ctx, ks, asOf)
	if err != nil {
		return nil, fmt.Errorf("project.matched: search owners: %w", err)
	}
	ms := make([]domain.Match, 0, len(ks))
	for _, k := range ks {
		if o, ok := owners[k]; ok && domain.ValidID(o.UserID) {
			ms = append(ms, domain.Match{UserID: o.UserID, CriteriaID: uuid.UUID(k).String(), CriteriaName: o.Name})
		}
	}
	return ms, nil
}

// projectMatches reads a project.matched event's matches, grouped by user
// (users) or, from older producers, one by one (matches).
func projectMatches(ev *projectsv1.ProjectMatched) ([]domain.Match, error) {
	ms := make([]domain.Match, 0, len(ev.GetMatches()))
	for _, m := range ev.GetMatches() {
		if !domain.ValidID(m.GetUserId()) {
			return nil, fmt.Errorf("project.matched: %w: user %q", events.ErrPermanent, m.GetUserId())
		}
		ms = append(ms, domain.Match{UserID: m.GetUserId(), CriteriaID: m.GetCriteriaId(), CriteriaName: m.GetCriteriaName()})
	}
	for _, u := range ev.GetUsers() {
		ids, names := u.GetCriteriaIds(), u.GetCriteriaNames()
		if !domain.ValidID(u.GetUserId()) || len(ids) != 16*len(names) {
			return nil, fmt.Errorf("project.matched: %w: user %q with %d bytes of ids for %d searches",
				events.ErrPermanent, u.GetUserId(), len(ids), len(names))
		}
		for i, name := range names {
			ms = append(ms, domain.Match{UserID: u.GetUserId(), CriteriaID: uuid.UUID(ids[16*i : 16*i+16]).String(), CriteriaName: name})
		}
	}
	return ms, nil
}
