package projectssvc

import (
	"fmt"
	"math"
	"time"

	"bidradar/pkg/config"
	"bidradar/pkg/runner"
	"bidradar/services/projects/internal/adapters/egpsource"
	"bidradar/services/projects/internal/adapters/postgres"
	"bidradar/services/projects/internal/app"
)

// settings are the service's configuration. Environment: DATABASE_URL
// (required), AUTH_TARGET, NATS_URL (outbox relay; unset keeps events in the
// outbox), DEMO_DATA (demo projects for an empty database, default 3000, 0 =
// none), EGP_RSS_URL (feed base URL), EGP_RSS_AGENCIES (comma-separated
// deptIds to poll; unset = no poller), EGP_RSS_INTERVAL, SEARCH_TOTAL_CAP, and
// for scrape / update-project-smart / saved criteria: EGP_PROJECT_URL (the
// e-GP getProjectDetail endpoint, default egpsource.DefaultURL),
// EGP_PROJECT_CONCURRENCY (parallel e-GP requests per scrape, default 4),
// EGP_PROJECT_PACE (least time between two e-GP requests, default 250ms),
// PROJECT_REFRESH_COOLDOWN (update-project-smart, default 10m),
// SUBSCRIPTION_TARGET (host:port of the subscription service, h2c: the
// tier limits; unset: saving criteria and the OCDS export answer 503),
// SUBSCRIPTION_TIMEOUT (default 5s), INGEST_ALLOWED_HOSTS (hosts an admin
// ingest may fetch, default e-GP's) and INTERESTS_TARGET (host:port of the
// interests service: the users' marks on listing rows and the listing flags).
type settings struct {
	service   runner.ServiceEnv
	interests string // INTERESTS_TARGET
	demo      int    // DEMO_DATA
	search    postgres.Options
	rss       rssConfig
	hosts     []string   // INGEST_ALLOWED_HOSTS
	extras    app.Extras // without the stores and the quota client, added once the pool is open
	quota     quotaConfig
}

// rssConfig is the e-GP feed poller's: no agencies, no poller.
type rssConfig struct {
	base     string
	agencies []string
	interval time.Duration
}

// readSettings reads the configuration and fails with every problem at once.
func readSettings(getenv runner.Getenv) (settings, error) {
	env := config.FromGetenv(getenv)
	s := settings{
		service:   runner.ReadServiceEnv(env),
		interests: env.String("INTERESTS_TARGET", ""),
		demo:      env.IntIn("DEMO_DATA", DefaultDemoData, 0, math.MaxInt),
		search:    postgres.Options{TotalCap: env.Int("SEARCH_TOTAL_CAP", 0)},
		rss: rssConfig{
			base:     env.String("EGP_RSS_URL", ""),
			agencies: env.List("EGP_RSS_AGENCIES", nil),
			interval: env.PositiveDuration("EGP_RSS_INTERVAL", 15*time.Minute),
		},
		hosts: env.List("INGEST_ALLOWED_HOSTS", DefaultIngestHosts),
	}
	s.extras, s.quota = extras(env)
	if err := env.Err(); err != nil {
		return settings{}, fmt.Errorf("projects config: %w", err)
	}
	return s, nil
}

// quotaConfig is where the subscription service answers (SUBSCRIPTION_TARGET;
// empty: no quota client).
type quotaConfig struct {
	target  string
	timeout time.Duration
}

// extras reads the configuration of scrape, update-project-smart and saved
// criteria (the stores and the quota client are added once the server and
// the pool are open).
func extras(env *config.Loader) (app.Extras, quotaConfig) {
	x := app.Extras{
		Source:      egpsource.New(env.String("EGP_PROJECT_URL", "")),
		Concurrency: env.IntIn("EGP_PROJECT_CONCURRENCY", 0, 1, 32), // 0: the app's default
		Pace:        env.Duration("EGP_PROJECT_PACE", 250*time.Millisecond),
		Cooldown:    env.PositiveDuration("PROJECT_REFRESH_COOLDOWN", 0), // 0: the app's default
	}
	timeout := env.PositiveDuration("SUBSCRIPTION_TIMEOUT", 5*time.Second)
	return x, quotaConfig{target: env.String("SUBSCRIPTION_TARGET", ""), timeout: timeout}
}
