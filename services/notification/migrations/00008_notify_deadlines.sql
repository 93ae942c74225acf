-- +goose Up
-- The day-before deadline reminder gets its own switch; until now it
-- followed notify_announcements, so each user starts where they were.
ALTER TABLE settings ADD COLUMN notify_deadlines boolean;
UPDATE settings SET notify_deadlines = notify_announcements;
ALTER TABLE settings ALTER COLUMN notify_deadlines SET DEFAULT true, ALTER COLUMN notify_deadlines SET NOT NULL;

-- +goose Down
ALTER TABLE settings DROP COLUMN notify_deadlines;
