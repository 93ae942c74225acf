-- +goose NO TRANSACTION
-- +goose Up
-- The (status, announced_on, id) btree served date walks with one status.
-- The covering date btree (migration 4) holds the status, and each of the
-- nine statuses is common, so a walk of that index reads few extra entries
-- (index-only) for the same page. Measured on 2 cores: dropping it makes a
-- bulk import of new projects ~5 % faster (20.5 k → 21.5 k rows/s, three
-- alternated runs each).
DROP INDEX CONCURRENTLY IF EXISTS projects_status_date_idx;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS projects_status_date_idx ON projects (status, announced_on DESC, id DESC);
