-- +goose Up
-- Rollups: the benchmark of each group a request names alone (all awards, an
-- agency, a method, a category and their combinations the price guide uses),
-- refreshed by a job after the writes that made it stale (rollup_dirty).
-- A stale group is computed from the awards instead, so every answer is
-- exact. discounts holds the group's sorted discounts for the price guide's
-- percentile ranks (the groups with a category only).
CREATE TABLE rollups (
	dims      text NOT NULL,
	key       text NOT NULL,
	body      jsonb NOT NULL,
	discounts float8[],
	PRIMARY KEY (dims, key)
);
CREATE TABLE rollup_dirty (
	dims    text NOT NULL,
	key     text NOT NULL,
	version bigint NOT NULL DEFAULT 1,
	PRIMARY KEY (dims, key)
);
