-- +goose Up
-- Projects, their announcement steps, ingestion runs and the agency list.
-- The database must have a UTF-8 LC_CTYPE (C.UTF-8): under C, pg_trgm
-- extracts no trigram from Thai text.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS intarray WITH SCHEMA public;

CREATE TABLE projects (
	id                    text PRIMARY KEY CHECK (id ~ '^[0-9]{11}$'),
	name                  text NOT NULL DEFAULT '',
	search_text           text NOT NULL DEFAULT '',   -- thaitext.Normalize(name)
	search_bigrams        int4[] NOT NULL DEFAULT '{}', -- thaitext.Bigrams(search_text)
	agency_code           text NOT NULL DEFAULT '',
	agency_name           text NOT NULL DEFAULT '',
	sub_agency_code       text NOT NULL DEFAULT '',
	sub_agency_name       text NOT NULL DEFAULT '',
	ministry_code         text NOT NULL DEFAULT '',
	ministry_name         text NOT NULL DEFAULT '',
	province_code         text NOT NULL DEFAULT '',
	district              text NOT NULL DEFAULT '',
	subdistrict           text NOT NULL DEFAULT '',
	method_code           text NOT NULL DEFAULT '',
	method_name           text NOT NULL DEFAULT '',
	work_type_code        text NOT NULL DEFAULT '',
	work_type_name        text NOT NULL DEFAULT '',
	strategy_code         text NOT NULL DEFAULT '',
	budget                numeric(16,2),
	reference_price       numeric(16,2),
	agreed_price          numeric(16,2),
	budget_year           int NOT NULL DEFAULT 0,
	status                text NOT NULL DEFAULT 'planned',
	raw_status            text NOT NULL DEFAULT '',
	steps                 jsonb NOT NULL DEFAULT '[]',
	announce_types        text[] NOT NULL DEFAULT '{}',
	announced_on          date NOT NULL DEFAULT '1900-01-01', -- last step date; 1900-01-01 = none
	last_announce_type    text NOT NULL DEFAULT '',
	winner_tax_id         text NOT NULL DEFAULT '',
	winner_tax_id_damaged boolean NOT NULL DEFAULT false,
	winner_name           text NOT NULL DEFAULT '',
	contract_no           text NOT NULL DEFAULT '',
	contract_signed       date,
	contract_end          date,
	contract_value        numeric(16,2),
	contract_status       text NOT NULL DEFAULT '',
	location              text NOT NULL DEFAULT '',
	source                text NOT NULL DEFAULT '',
	first_seen_at         timestamptz NOT NULL DEFAULT now(),
	last_seen_at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX projects_search_trgm_idx ON projects USING gin (search_text gin_trgm_ops);
CREATE INDEX projects_search_bigrams_idx ON projects USING gin (search_bigrams gin__int_ops);
CREATE INDEX projects_date_idx ON projects (announced_on DESC, id DESC);
CREATE INDEX projects_budget_idx ON projects ((coalesce(budget, -1)) DESC, id DESC);
CREATE INDEX projects_province_date_idx ON projects (province_code, announced_on DESC, id DESC);
CREATE INDEX projects_status_date_idx ON projects (status, announced_on DESC, id DESC);

-- Departments and sub-departments as they appear in the data (dropdowns).
CREATE TABLE agencies (
	agency_name     text NOT NULL,
	sub_agency_name text NOT NULL,
	PRIMARY KEY (agency_name, sub_agency_name)
);

CREATE TABLE ingest_runs (
	id                  bigserial PRIMARY KEY,
	source              text NOT NULL,
	target              text NOT NULL DEFAULT '',
	status              text NOT NULL DEFAULT 'running',
	started_at          timestamptz NOT NULL,
	finished_at         timestamptz,
	duration_ms         bigint,
	seen                int NOT NULL DEFAULT 0,
	created             int NOT NULL DEFAULT 0,
	updated             int NOT NULL DEFAULT 0,
	unchanged           int NOT NULL DEFAULT 0,
	announcements_added int NOT NULL DEFAULT 0,
	errors              int NOT NULL DEFAULT 0,
	error_log           jsonb NOT NULL DEFAULT '[]'
);
