-- +goose Up
-- The instant alerts' memory of which saved normal searches have already
-- alerted about a project: one row a project holding the ids of those
-- searches, instead of a criteria_matches row a search and project. An
-- import of 20 000 projects against 100 000 searches matches 3.27 M pairs;
-- a row each (~13 µs of PostgreSQL's time apiece, on a primary key larger
-- than shared buffers) kept the alerts 37 times slower than the import. A
-- project ingested again has its row read (locked) and extended in one
-- piece. Ids of deleted searches stay in the arrays: ids are never reused,
-- and an id alone names nobody. criteria_matches stays the memory of the
-- overnight digests.
-- toast_tuple_target: a project's list (~160 ids, 2.6 kB) stays in its
-- row, not compressed and moved out to the TOAST table at 2 kB.
CREATE TABLE project_alerts (
	project_id   text PRIMARY KEY,
	criteria_ids uuid[] NOT NULL,
	updated_at   timestamptz NOT NULL
) WITH (toast_tuple_target = 8160);

-- What the normal searches were told before, so nothing is told again.
INSERT INTO project_alerts (project_id, criteria_ids, updated_at)
SELECT m.project_id, array_agg(m.criteria_id ORDER BY m.criteria_id), max(m.matched_at)
FROM criteria_matches m JOIN search_criteria c ON c.id = m.criteria_id AND c.search_type = 'normal'
GROUP BY m.project_id;

-- +goose Down
INSERT INTO criteria_matches (criteria_id, project_id, matched_at)
SELECT c.id, a.project_id, a.updated_at FROM project_alerts a
CROSS JOIN LATERAL unnest(a.criteria_ids) AS t (criteria_id)
JOIN search_criteria c ON c.id = t.criteria_id
ON CONFLICT DO NOTHING;
DROP TABLE project_alerts;
