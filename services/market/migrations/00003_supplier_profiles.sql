-- +goose Up
-- The profiles of busy suppliers (200 wins or more), kept like the rollups:
-- set to NULL when the supplier's awards change, recomputed by the refresh
-- job, never read while stale (docs/market.md#speed).
ALTER TABLE suppliers ADD COLUMN profile jsonb;
CREATE INDEX awards_year_method ON awards (budget_year, method_code);
