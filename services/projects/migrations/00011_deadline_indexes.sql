-- +goose NO TRANSACTION
-- +goose Up
-- The reminder job asks for the projects due on one date; few projects
-- have a deadline at all, so the partial indexes stay small.
CREATE INDEX CONCURRENTLY IF NOT EXISTS projects_submission_due_idx ON projects (submission_due) WHERE submission_due IS NOT NULL;
CREATE INDEX CONCURRENTLY IF NOT EXISTS projects_hearing_due_idx ON projects (hearing_due) WHERE hearing_due IS NOT NULL;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS projects_hearing_due_idx;
DROP INDEX CONCURRENTLY IF EXISTS projects_submission_due_idx;
