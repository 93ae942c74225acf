-- +goose NO TRANSACTION
-- +goose Up
-- One character-trigram int4[] GIN replaces the pg_trgm GIN and the bigram GIN
-- (the first design had both; docs/architecture.md#trigram-index). The trigram
-- codes are computed in Go (thaitext.Trigrams) where the normalisation already
-- lives; the last pair of a title ends in an end-of-text marker, so a
-- 2-character keyword narrows through the same index (any trigram starting with
-- it) and a keyword of 3+ characters through its own trigrams (all of them).
-- Measured on 2 cores, 20 000 new rows in one INSERT: the two old indexes cost
-- 72 µs a row of ~91 (pg_trgm's extraction alone 20 µs: word splitting and
-- lower-casing per character through the C library), the single trigram index
-- ~28 µs. Unlike pg_trgm, the trigrams also span spaces and punctuation, as
-- substring search does.
--
-- search_trigrams is the same function in SQL, used here to back-fill
-- existing rows (the service writes the Go codes; a test keeps both equal).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION search_gram_class(c text) RETURNS int
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT CASE
		WHEN ascii(c) BETWEEN 3584 AND 3711 THEN ascii(c) - 3584   -- Thai block U+0E00–U+0E7F
		WHEN ascii(c) < 128 THEN 128 + ascii(c)
		ELSE 256 + (((ascii(c)::bigint * 2654435761) % 4294967296) >> 27)::int
	END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION search_trigrams(t text) RETURNS int4[]
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT coalesce(array_agg(DISTINCT k ORDER BY k), '{}')
	FROM (
		SELECT (search_gram_class(substr(t, i, 1)) << 18)
			| (search_gram_class(substr(t, i + 1, 1)) << 9)
			| CASE WHEN i + 2 <= length(t) THEN search_gram_class(substr(t, i + 2, 1)) ELSE 288 END AS k
		FROM generate_series(1, length(t) - 1) AS i
	) grams
$$;
-- +goose StatementEnd

-- NO TRANSACTION: the back-fill commits every 10 000 rows (a table of
-- 10 M rows is never locked in one long transaction) and the index is built
-- CONCURRENTLY before the old ones go, so searches and ingestion go on.
ALTER TABLE projects ADD COLUMN IF NOT EXISTS search_grams int4[] NOT NULL DEFAULT '{}';

-- +goose StatementBegin
DO $$
DECLARE
	last text := '';
	upto text;
BEGIN
	LOOP
		SELECT max(id) INTO upto FROM (
			SELECT id FROM projects WHERE id > last ORDER BY id LIMIT 10000) batch;
		EXIT WHEN upto IS NULL;
		UPDATE projects SET search_grams = search_trigrams(search_text)
			WHERE id > last AND id <= upto AND search_text <> '' AND search_grams = '{}';
		COMMIT;
		last := upto;
	END LOOP;
END
$$;
-- +goose StatementEnd

DROP INDEX CONCURRENTLY IF EXISTS projects_search_grams_idx;
-- province, status and method ride along (btree_gin, as migration 3 did)
CREATE INDEX CONCURRENTLY projects_search_grams_idx ON projects
	USING gin (search_grams gin__int_ops, province_code, status, method_code);
DROP INDEX CONCURRENTLY IF EXISTS projects_search_trgm_idx;
DROP INDEX CONCURRENTLY IF EXISTS projects_search_bigrams_idx;
ALTER TABLE projects DROP COLUMN IF EXISTS search_bigrams;
