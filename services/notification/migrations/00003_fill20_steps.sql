-- +goose Up
-- is_fill20: a follower who also wants the step changes of the last 20
-- days in the daily digest (kept from interests.v1.interest.changed).
ALTER TABLE follows ADD COLUMN fill20 boolean NOT NULL DEFAULT false;

-- The steps of projects (projects.v1.announcement.added), for those
-- digests; rows older than the window are pruned by the digest job.
CREATE TABLE project_steps (
	event_id     text PRIMARY KEY,
	project_id   text NOT NULL,
	project_name text NOT NULL,
	type_name    text NOT NULL,
	day          date,           -- the announcement's date, when known
	seen_at      timestamptz NOT NULL
);
CREATE INDEX project_steps_project_idx ON project_steps (project_id, seen_at);

-- +goose Down
DROP TABLE project_steps;
ALTER TABLE follows DROP COLUMN fill20;
