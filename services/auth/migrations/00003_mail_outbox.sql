-- +goose Up
-- E-mail leaves the request path (issue 12): a request queues its message
-- here and answers at once, whether or not a message was queued; a worker
-- sends with retries. The body (it may hold a one-time code) is erased once
-- the message is sent or given up.
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
