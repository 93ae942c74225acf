// Package benchkit exposes what bench/listing needs from the interests
// service: bulk records for one user and the connect handler without auth.
package benchkit

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"bidradar/gen/interests/v1/interestsv1connect"
	"bidradar/services/interests/interestssvc"
	"bidradar/services/interests/internal/adapters/postgres"
	"bidradar/services/interests/internal/app"
	"bidradar/services/interests/internal/domain"
	"bidradar/services/interests/internal/ports"
)

// Open connects to url and migrates the interests schema.
func Open(ctx context.Context, url string) (*pgxpool.Pool, error) { return interestssvc.Open(ctx, url) }

// Mark gives user a record on each of projectIDs: every 2nd liked, every 3rd
// followed (every 6th with fill20), every 5th bid on, every 7th archived,
// every 11th commented; updated_at spread over the last days.
func Mark(ctx context.Context, pool *pgxpool.Pool, user string, projectIDs []string) error {
	now := time.Now()
	rows := make([][]any, 0, len(projectIDs))
	for i, id := range projectIDs {
		rows = append(rows, []any{user, id, i%2 == 0, i%3 == 0, i%6 == 0, i%5 == 0, i%7 == 0, i%11 == 0, now.Add(-time.Duration(i) * time.Minute)})
	}
	if _, err := pool.Exec(ctx, `DELETE FROM interests WHERE user_id = $1`, user); err != nil {
		return err
	}
	n, err := pool.CopyFrom(ctx, pgx.Identifier{"interests"},
		[]string{"user_id", "project_id", "is_like", "is_follow", "is_fill20", "is_bid", "archived", "comment_count", "updated_at"},
		pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
			r := rows[i]
			cc := 0
			if r[7].(bool) {
				cc = 1
			}
			return []any{r[0], r[1], r[2], r[3], r[4], r[5], r[6], cc, r[8]}, nil
		}))
	if err != nil {
		return fmt.Errorf("copy interests: %w", err)
	}
	if int(n) != len(rows) {
		return fmt.Errorf("copied %d of %d", n, len(rows))
	}
	_, err = pool.Exec(ctx, `ANALYZE interests`)
	return err
}

// Handler returns the interests connect handler (no auth: benchmark only).
func Handler(pool *pgxpool.Pool) http.Handler {
	a := app.New(postgres.New(pool), noProjects{}, nil)
	mux := http.NewServeMux()
	mux.Handle(interestsv1connect.NewInterestsServiceHandler(ports.NewHandler(a)))
	return mux
}

// noProjects: the listing's internal calls never ask for projects.
type noProjects struct{}

func (noProjects) Info(context.Context, []string) (map[string]domain.ProjectInfo, error) {
	return map[string]domain.ProjectInfo{}, nil
}
