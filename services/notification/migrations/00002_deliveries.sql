-- +goose Up
-- Alerts beyond the bell: each e-mail or LINE message to send, written in
-- the transaction of its notification and sent by a worker with retries.
-- retry_key is LINE's X-Line-Retry-Key: the same key on every attempt, so
-- a retry after a timeout never delivers twice.
CREATE TABLE deliveries (
	id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	notification_id uuid NOT NULL,
	user_id         uuid NOT NULL,
	channel         text NOT NULL CHECK (channel IN ('email', 'line')),
	retry_key       uuid NOT NULL,
	attempts        int NOT NULL DEFAULT 0,
	next_attempt_at timestamptz NOT NULL,
	sent_at         timestamptz,
	failed_at       timestamptz,
	last_error      text,
	UNIQUE (notification_id, channel)
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;

-- One daily e-mail digest per user and day (07:00 Asia/Bangkok), however
-- many replicas run the job.
CREATE TABLE digests (
	user_id uuid NOT NULL,
	day     date NOT NULL,
	sent_at timestamptz,
	count   int NOT NULL,
	PRIMARY KEY (user_id, day)
);

-- +goose Down
DROP TABLE digests;
DROP TABLE deliveries;
