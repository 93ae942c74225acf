-- The date walk (common keywords, NOT lists, walks with several provinces)
-- filters rows by search_text: with the text and the hot filters in the
-- index, the walk is an index-only scan reading ~100 rows per leaf page
-- instead of one heap page per row. Measured at 1 M rows: a keyword in
-- 0.1 % of the rows walked 10 k rows in 9.6 ms (1 095 index pages) instead
-- of ~10 k heap pages. Costs ~230 MB per 1 M rows.
DROP INDEX projects_date_idx;
CREATE INDEX projects_date_idx ON projects (announced_on DESC, id DESC)
	INCLUDE (search_text, province_code, status, method_code);
