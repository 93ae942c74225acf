-- +goose Up
-- What a search told instantly is kept by project (project_alerts), what it
-- told overnight by search (criteria_matches). A search switched from
-- instant to overnight is marked, so its digests leave out the projects it
-- already alerted about; one switched the other way has its overnight
-- history copied into project_alerts when it switches (UpdateCriteria).
-- Searches switched before this migration are not marked.
ALTER TABLE search_criteria ADD COLUMN was_instant boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE search_criteria DROP COLUMN was_instant;
