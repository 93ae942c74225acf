-- +goose Up
-- The (agency, method, category) index also holds the discount: the price
-- guide's most specific group is then counted and the bid ranked in it
-- (percent_rank) from the index alone, without one heap page per award of
-- the group (docs/market.md#speed).
CREATE INDEX awards_dept_cover ON awards (dept_code, method_code, type_code) INCLUDE (discount_pct);
DROP INDEX awards_dept;
ALTER INDEX awards_dept_cover RENAME TO awards_dept;
