-- +goose Up
-- Which saved search has already alerted about which project: a project
-- matching the same search again (a later update, a redelivered event)
-- never makes a second alert. Rows go with their search.
CREATE TABLE criteria_matches (
	criteria_id uuid NOT NULL REFERENCES search_criteria (id) ON DELETE CASCADE,
	project_id  text NOT NULL,
	matched_at  timestamptz NOT NULL,
	PRIMARY KEY (criteria_id, project_id)
);
CREATE INDEX search_criteria_normal_idx ON search_criteria (created_at) WHERE search_type = 'normal';

-- A counter every change of the saved searches bumps: a matcher holding
-- the searches in memory reloads them when it moves (one primary-key read
-- per event instead of re-reading every search), on every replica.
CREATE TABLE criteria_version (one boolean PRIMARY KEY DEFAULT true CHECK (one), v bigint NOT NULL);
INSERT INTO criteria_version VALUES (true, 0);

-- +goose StatementBegin
CREATE FUNCTION bump_criteria_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE criteria_version SET v = v + 1;
	RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER search_criteria_changed AFTER INSERT OR UPDATE OF criteria, search_type, name OR DELETE ON search_criteria
	FOR EACH STATEMENT EXECUTE FUNCTION bump_criteria_version();

-- +goose Down
DROP TRIGGER search_criteria_changed ON search_criteria;
DROP FUNCTION bump_criteria_version();
DROP TABLE criteria_version;
DROP INDEX search_criteria_normal_idx;
DROP TABLE criteria_matches;
