-- +goose Up
-- One row per awarded project, as the projects service last published it
-- (projects.v1.AwardRecorded; docs/market.md#awards). discount_pct is
-- (reference − agreed) ÷ reference × 100 when both prices are > 0, else null
-- (docs/market.md#definitions). trigrams are thaitext.Trigrams of search_text,
-- the search's own codes (docs/architecture.md#trigram-index).
CREATE TABLE awards (
	project_id       text PRIMARY KEY,
	project_name     text NOT NULL,
	search_text      text NOT NULL,
	trigrams         int4[] NOT NULL DEFAULT '{}',
	dept_code        text NOT NULL DEFAULT '',
	dept_name        text NOT NULL DEFAULT '',
	dept_sub_code    text NOT NULL DEFAULT '',
	dept_sub_name    text NOT NULL DEFAULT '',
	ministry_code    text NOT NULL DEFAULT '',
	ministry_name    text NOT NULL DEFAULT '',
	province_code    text NOT NULL DEFAULT '',
	method_code      text NOT NULL DEFAULT '',
	method_name      text NOT NULL DEFAULT '',
	type_code        text NOT NULL DEFAULT '',
	type_name        text NOT NULL DEFAULT '',
	budget_year      int NOT NULL DEFAULT 0,
	budget_satang    bigint,
	reference_satang bigint,
	agreed_satang    bigint,
	contract_satang  bigint,
	discount_pct     double precision,
	announce_date    date,
	source           text NOT NULL DEFAULT '',
	content_key      text NOT NULL,
	updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX awards_dept ON awards (dept_code, method_code, type_code);
CREATE INDEX awards_dept_sub ON awards (dept_sub_code);
CREATE INDEX awards_method_type ON awards (method_code, type_code);
CREATE INDEX awards_type ON awards (type_code);
CREATE INDEX awards_trigrams ON awards USING gin (trigrams);

-- The winners of an award as published. tax_id is set only for an id that
-- passes its check digit (docs/market.md#tax-ids); winner_key is the identity:
-- 'T' || tax_id, else 'N' || the normalised name.
CREATE TABLE award_winners (
	project_id       text NOT NULL REFERENCES awards ON DELETE CASCADE,
	seq              int NOT NULL,
	name             text NOT NULL,
	name_key         text NOT NULL,
	tax_id_published text NOT NULL DEFAULT '',
	tax_id_damaged   boolean NOT NULL DEFAULT false,
	tax_id           text,
	winner_key       text NOT NULL,
	contract_no      text NOT NULL DEFAULT '',
	contract_satang  bigint,
	PRIMARY KEY (project_id, seq)
);
CREATE INDEX award_winners_key ON award_winners (winner_key);
CREATE INDEX award_winners_tax_id ON award_winners (tax_id) WHERE tax_id IS NOT NULL;

-- suppliers is a rollup of award_winners by winner_key, refreshed after each
-- write (dirty_suppliers): the supplier search reads it.
CREATE TABLE suppliers (
	winner_key   text PRIMARY KEY,
	tax_id       text,
	name         text NOT NULL,
	name_key     text NOT NULL,
	wins         bigint NOT NULL,
	total_satang bigint NOT NULL
);
CREATE INDEX suppliers_tax_id ON suppliers (tax_id) WHERE tax_id IS NOT NULL;
CREATE TABLE dirty_suppliers (
	winner_key text PRIMARY KEY
);

-- The competitor watchlist (docs/market.md#competitor-watch).
CREATE TABLE watches (
	user_id    text NOT NULL,
	tax_id     text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (user_id, tax_id)
);
CREATE INDEX watches_tax_id ON watches (tax_id);

-- One alert per watcher, project and tax id, ever: a replay inserts nothing.
-- sent_at is set when the alert left in a market.v1.CompetitorWon event.
CREATE TABLE competitor_alerts (
	user_id       text NOT NULL,
	project_id    text NOT NULL,
	tax_id        text NOT NULL,
	project_name  text NOT NULL,
	winner_name   text NOT NULL,
	agreed_satang bigint NOT NULL DEFAULT 0,
	dept_name     text NOT NULL DEFAULT '',
	created_at    timestamptz NOT NULL DEFAULT now(),
	sent_at       timestamptz,
	PRIMARY KEY (user_id, project_id, tax_id)
);
CREATE INDEX competitor_alerts_pending ON competitor_alerts (created_at) WHERE sent_at IS NULL;
