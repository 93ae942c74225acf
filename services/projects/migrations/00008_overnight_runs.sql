-- +goose Up
-- The overnight searches' runs, one per Bangkok date. A replica claims the
-- day's run with a lease (lease_until); a crashed run's lease runs out and
-- the next replica resumes it over the same window. An operator's "run
-- now" claims a finished run again.
CREATE TABLE overnight_runs (
	day          date PRIMARY KEY,
	window_from  timestamptz NOT NULL,
	window_to    timestamptz NOT NULL,
	started_at   timestamptz NOT NULL,
	lease_until  timestamptz NOT NULL,
	finished_at  timestamptz,
	attempts     int NOT NULL DEFAULT 1,
	criteria     int NOT NULL DEFAULT 0,
	projects     int NOT NULL DEFAULT 0,
	digests      int NOT NULL DEFAULT 0
);

-- One digest per overnight search and day, written with its event in one
-- transaction: a resumed or repeated run finds it and writes nothing.
-- Rows go with their search.
CREATE TABLE overnight_digests (
	day         date NOT NULL,
	criteria_id uuid NOT NULL REFERENCES search_criteria (id) ON DELETE CASCADE,
	event_id    uuid NOT NULL,
	projects    int NOT NULL,
	created_at  timestamptz NOT NULL,
	PRIMARY KEY (day, criteria_id)
);

-- +goose Down
DROP TABLE overnight_digests;
DROP TABLE overnight_runs;
