-- +goose NO TRANSACTION
-- +goose Up
-- The listing's deadline order (sort=deadline) walks the projects whose last
-- day to submit bids is today or later by (submission_due, id), the order
-- and keyset of its first part: with id in the index the walk needs no sort
-- of equal days, and a page after a cursor starts at its row. It replaces
-- the single-column index of migration 11, whose lookups by one date (the
-- reminder job) it serves as well. Partial, like it: few projects have a
-- deadline at all.
--
-- NO TRANSACTION: built CONCURRENTLY beside the old index; writes never block.
DROP INDEX CONCURRENTLY IF EXISTS projects_submission_due_id_idx;
CREATE INDEX CONCURRENTLY projects_submission_due_id_idx ON projects (submission_due, id) WHERE submission_due IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS projects_submission_due_idx;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS projects_submission_due_idx ON projects (submission_due) WHERE submission_due IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS projects_submission_due_id_idx;
