-- +goose NO TRANSACTION
-- +goose Up
-- The overnight run reads the projects first seen in the last 24 hours,
-- in (first_seen_at, id) pages. New rows append at the index's right edge.
CREATE INDEX CONCURRENTLY IF NOT EXISTS projects_first_seen_idx ON projects (first_seen_at, id);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS projects_first_seen_idx;
