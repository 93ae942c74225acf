-- +goose NO TRANSACTION
-- +goose Up
-- The keyword GIN indexes also hold the hot equality filters (province,
-- status, method) through btree_gin, so a keyword + filter query reads only
-- the rows matching both from the heap. Measured at 1 M rows: "รถ" in two
-- provinces went from a BitmapAnd over 94 k keyword rows and 26 k province
-- rows (5 k heap pages) to one GIN scan returning the 2 449 matches. A
-- multicolumn GIN index serves conditions on any subset of its columns, so
-- keyword-only queries use the same indexes; the extra columns add ~5 %.
--
-- NO TRANSACTION: built CONCURRENTLY beside the old indexes, which keep
-- serving searches until the new ones are valid; writes never block. A
-- failed run leaves at most an invalid *_new index, dropped on the retry.
CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public;

DROP INDEX CONCURRENTLY IF EXISTS projects_search_trgm_idx_new;
CREATE INDEX CONCURRENTLY projects_search_trgm_idx_new ON projects
	USING gin (search_text gin_trgm_ops, province_code, status, method_code);
DROP INDEX CONCURRENTLY IF EXISTS projects_search_trgm_idx;
ALTER INDEX projects_search_trgm_idx_new RENAME TO projects_search_trgm_idx;

DROP INDEX CONCURRENTLY IF EXISTS projects_search_bigrams_idx_new;
CREATE INDEX CONCURRENTLY projects_search_bigrams_idx_new ON projects
	USING gin (search_bigrams gin__int_ops, province_code, status, method_code);
DROP INDEX CONCURRENTLY IF EXISTS projects_search_bigrams_idx;
ALTER INDEX projects_search_bigrams_idx_new RENAME TO projects_search_bigrams_idx;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS projects_search_trgm_idx_old;
CREATE INDEX CONCURRENTLY projects_search_trgm_idx_old ON projects USING gin (search_text gin_trgm_ops);
DROP INDEX CONCURRENTLY IF EXISTS projects_search_trgm_idx;
ALTER INDEX projects_search_trgm_idx_old RENAME TO projects_search_trgm_idx;

DROP INDEX CONCURRENTLY IF EXISTS projects_search_bigrams_idx_old;
CREATE INDEX CONCURRENTLY projects_search_bigrams_idx_old ON projects USING gin (search_bigrams gin__int_ops);
DROP INDEX CONCURRENTLY IF EXISTS projects_search_bigrams_idx;
ALTER INDEX projects_search_bigrams_idx_old RENAME TO projects_search_bigrams_idx;
