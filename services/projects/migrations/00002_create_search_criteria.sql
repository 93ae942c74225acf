-- +goose Up
-- Saved search criteria (to_do_search, recall_save_criteria) and the
-- per-project refresh cooldown of update-project-smart. Both are shared by
-- every replica.
CREATE TABLE search_criteria (
	id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
	user_id          text NOT NULL,
	name             text NOT NULL DEFAULT '',
	search_type      text NOT NULL CHECK (search_type IN ('normal', 'overnight')),
	criteria         jsonb NOT NULL,            -- docs/product.md#search-criteria payload and names
	created_at       timestamptz NOT NULL DEFAULT now(),
	last_run_at      timestamptz,
	last_match_count bigint NOT NULL DEFAULT 0
);

CREATE INDEX search_criteria_user_idx ON search_criteria (user_id, created_at DESC, id DESC);
CREATE INDEX search_criteria_overnight_idx ON search_criteria (search_type) WHERE search_type = 'overnight';

CREATE TABLE project_refreshes (
	project_id   text PRIMARY KEY CHECK (project_id ~ '^[0-9]{11}$'),
	refreshed_at timestamptz NOT NULL
);
