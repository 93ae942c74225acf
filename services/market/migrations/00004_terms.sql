-- +goose Up
-- terms: the trigrams of search_text and one token per filter value of the
-- award (agency, sub-agency, ministry, province, method, category, budget
-- year: hashtext of a one-letter dimension and the value, its sign bit set,
-- so never a trigram code), in one GIN index. A keyword with filters is then
-- narrowed by a single index scan that intersects the keyword's trigrams and
-- the filters' tokens, instead of reading every row holding the keyword
-- (docs/market.md#speed). A token only narrows: the columns' own conditions
-- and the LIKE still decide, so a hash collision cannot change an answer.
SET LOCAL maintenance_work_mem = '256MB';
ALTER TABLE awards ADD COLUMN terms int4[] GENERATED ALWAYS AS (trigrams || ARRAY[
	hashtext('d' || dept_code) | (-2147483648)::int4,
	hashtext('s' || dept_sub_code) | (-2147483648)::int4,
	hashtext('n' || ministry_code) | (-2147483648)::int4,
	hashtext('p' || province_code) | (-2147483648)::int4,
	hashtext('m' || method_code) | (-2147483648)::int4,
	hashtext('t' || type_code) | (-2147483648)::int4,
	hashtext('y' || budget_year::text) | (-2147483648)::int4]) STORED;
CREATE INDEX awards_terms ON awards USING gin (terms);
DROP INDEX awards_trigrams;
