-- +goose Up
-- Mail waits in the job queue every service shares (pkg/queue's
-- queue_jobs, created before these migrations run): the messages not yet
-- sent move there, and the service's own copy of the mail table goes.
INSERT INTO queue_jobs (kind, destination, payload, attempts, next_attempt_at, created_at, last_error)
SELECT 'mail', 'mail', jsonb_strip_nulls(jsonb_build_object('to', recipient, 'subject', subject, 'text', body_text, 'html', body_html)),
	attempts, next_attempt_at, created_at, last_error
FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL ORDER BY id;
DROP TABLE mail_outbox;

-- +goose Down
-- Not undone: the older mail table (its shape is in 00003) is not made
-- again, and the code before this version needs it: going back means
-- restoring a backup, so a roll-back stops here rather than leave a schema
-- no version runs on.
-- +goose StatementBegin
DO $$ BEGIN RAISE EXCEPTION 'migration 00007 cannot be rolled back: restore a backup'; END $$;
-- +goose StatementEnd
