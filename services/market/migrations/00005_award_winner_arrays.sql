-- +goose Up
-- The winners of an award, also on the award's row, in award_winners' seq
-- order (winner_key, tax_id or '' when none, name as published): a
-- benchmark's top winners are then counted from the rows it already reads,
-- without one award_winners lookup per award (docs/market.md#speed).
-- award_winners stays the record (suppliers, profiles, the watchlist);
-- ApplyAward writes both in one transaction.
ALTER TABLE awards ADD COLUMN winner_keys text[] NOT NULL DEFAULT '{}',
	ADD COLUMN winner_tax_ids text[] NOT NULL DEFAULT '{}',
	ADD COLUMN winner_names text[] NOT NULL DEFAULT '{}';
UPDATE awards a SET winner_keys = w.k, winner_tax_ids = w.t, winner_names = w.n FROM (
	SELECT project_id, array_agg(winner_key ORDER BY seq) AS k, array_agg(coalesce(tax_id, '') ORDER BY seq) AS t,
		array_agg(name ORDER BY seq) AS n
	FROM award_winners GROUP BY project_id) w
WHERE w.project_id = a.project_id;
