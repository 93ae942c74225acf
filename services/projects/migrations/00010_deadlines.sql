-- +goose Up
-- A project's deadlines (from its tender: OCDS tenderPeriod / enquiryPeriod
-- end dates), and the reminders sent the day before each: a row per
-- project, kind and date, written with its event in one transaction, so
-- every replica may run the job and each reminder goes out once.
ALTER TABLE projects ADD COLUMN submission_due date, ADD COLUMN hearing_due date;

CREATE TABLE deadline_reminders (
	project_id text NOT NULL,
	kind       text NOT NULL CHECK (kind IN ('submission', 'hearing')),
	day        date NOT NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (project_id, kind, day)
);

-- +goose Down
DROP TABLE deadline_reminders;
ALTER TABLE projects DROP COLUMN submission_due, DROP COLUMN hearing_due;
