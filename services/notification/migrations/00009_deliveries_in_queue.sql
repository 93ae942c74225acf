-- +goose Up
-- Each delivery is sent as a job of the queue every service shares
-- (pkg/queue's queue_jobs, created before these migrations run), keyed by
-- the delivery's id: its attempts, state and error move there, sent and
-- given-up ones too (the webhook's delivery log shows them). The delivery
-- stays the record of what to send: notification, channel, retry key and
-- the last HTTP status. A webhook's destination is its host.
INSERT INTO queue_jobs (kind, key, destination, attempts, next_attempt_at, created_at, done_at, failed_at, last_error)
SELECT 'notification.delivery', d.id::text,
	CASE WHEN d.channel = 'webhook'
		THEN 'webhook:' || coalesce(lower(trim(both '[]' from substring(w.url from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(\[[^]]*\]|[^:/?#]*)'))), '')
		ELSE d.channel END,
	d.attempts, d.next_attempt_at, n.created_at, d.sent_at, d.failed_at, d.last_error
FROM deliveries d JOIN notifications n ON n.id = d.notification_id LEFT JOIN webhooks w ON w.user_id = d.user_id
ORDER BY d.id;
DROP INDEX deliveries_due_idx;
ALTER TABLE deliveries DROP COLUMN attempts, DROP COLUMN next_attempt_at, DROP COLUMN sent_at,
	DROP COLUMN failed_at, DROP COLUMN last_error;

-- +goose Down
ALTER TABLE deliveries ADD COLUMN attempts int NOT NULL DEFAULT 0, ADD COLUMN next_attempt_at timestamptz,
	ADD COLUMN sent_at timestamptz, ADD COLUMN failed_at timestamptz, ADD COLUMN last_error text;
UPDATE deliveries d SET attempts = q.attempts, next_attempt_at = q.next_attempt_at, sent_at = q.done_at,
	failed_at = q.failed_at, last_error = q.last_error
FROM queue_jobs q WHERE q.kind = 'notification.delivery' AND q.key = d.id::text;
UPDATE deliveries SET next_attempt_at = now() WHERE next_attempt_at IS NULL;
ALTER TABLE deliveries ALTER COLUMN next_attempt_at SET NOT NULL;
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
DELETE FROM queue_jobs WHERE kind = 'notification.delivery';
