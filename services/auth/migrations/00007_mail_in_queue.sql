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
CREATE TABLE mail_outbox (
	id               bigserial PRIMARY KEY,
	recipient        text NOT NULL,
	subject          text NOT NULL,
	body_text        text,
	body_html        text,
	created_at       timestamptz NOT NULL DEFAULT now(),
	attempts         integer NOT NULL DEFAULT 0,
	next_attempt_at  timestamptz NOT NULL DEFAULT now(),
	sent_at          timestamptz,
	failed_at        timestamptz,
	last_error       text
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
INSERT INTO mail_outbox (recipient, subject, body_text, body_html, created_at, attempts, next_attempt_at, last_error)
SELECT payload->>'to', payload->>'subject', payload->>'text', payload->>'html', created_at, attempts, next_attempt_at, last_error
FROM queue_jobs WHERE kind = 'mail' AND done_at IS NULL AND failed_at IS NULL ORDER BY id;
DELETE FROM queue_jobs WHERE kind = 'mail';
