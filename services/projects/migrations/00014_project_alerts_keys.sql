-- +goose Up
-- The searches that alerted about a project, as their 16-byte keys end to
-- end (bytea) instead of a uuid[]: the alerts write them in PostgreSQL's
-- binary form, with nothing to parse. Writing a bulk import's 3.27 M
-- matches as text arrays (joined, split, cast) was a third of the instant
-- alerts' time.
ALTER TABLE project_alerts ADD COLUMN told bytea;
UPDATE project_alerts SET told = coalesce(
	(SELECT string_agg(uuid_send(t.id), ''::bytea ORDER BY t.n) FROM unnest(criteria_ids) WITH ORDINALITY AS t (id, n)),
	''::bytea);
ALTER TABLE project_alerts DROP COLUMN criteria_ids, ALTER COLUMN told SET NOT NULL;

-- +goose Down
ALTER TABLE project_alerts ADD COLUMN criteria_ids uuid[];
UPDATE project_alerts SET criteria_ids = coalesce(
	(SELECT array_agg(encode(substr(told, i, 16), 'hex')::uuid ORDER BY i) FROM generate_series(1, length(told), 16) AS i),
	'{}'::uuid[]);
ALTER TABLE project_alerts DROP COLUMN told, ALTER COLUMN criteria_ids SET NOT NULL;
