-- +goose Up
-- criteria_matches rows still go with their search, by a trigger instead of
-- a foreign key: the key was checked row by row for the millions of rows
-- the alerts write (a third of an insert's time; 20 000 new projects are
-- 3.3 M rows against 100 000 searches). Its other guarantee, no row of a
-- search deleted meanwhile, is kept by the writers: they lock the searches
-- they record (FOR KEY SHARE, once a search and batch: RecordMatches, the
-- overnight digest's own foreign key), so a delete waits for them and its
-- trigger, which reads with a new snapshot, removes what they wrote; a
-- writer that comes after the delete finds no search to lock.
ALTER TABLE criteria_matches DROP CONSTRAINT criteria_matches_criteria_id_fkey;

-- +goose StatementBegin
CREATE FUNCTION delete_criteria_matches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM criteria_matches m USING deleted_criteria d WHERE m.criteria_id = d.id;
	RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER search_criteria_deleted AFTER DELETE ON search_criteria
	REFERENCING OLD TABLE AS deleted_criteria
	FOR EACH STATEMENT EXECUTE FUNCTION delete_criteria_matches();

-- +goose Down
DROP TRIGGER search_criteria_deleted ON search_criteria;
DROP FUNCTION delete_criteria_matches();
DELETE FROM criteria_matches m WHERE NOT EXISTS (SELECT 1 FROM search_criteria c WHERE c.id = m.criteria_id);
ALTER TABLE criteria_matches ADD CONSTRAINT criteria_matches_criteria_id_fkey
	FOREIGN KEY (criteria_id) REFERENCES search_criteria (id) ON DELETE CASCADE;
