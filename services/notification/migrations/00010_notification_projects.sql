-- +goose Up
-- The projects a grouped alert names (an import's new matches of a user's
-- saved searches: one notification a user and import), in order; empty for
-- a notification of one project (project_id).
ALTER TABLE notifications ADD COLUMN project_ids text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE notifications DROP COLUMN project_ids;
