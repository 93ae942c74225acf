-- +goose Up
-- A user's outgoing webhook: every alert is POSTed to url, signed with
-- secret (HMAC-SHA256), through the deliveries of migration 2 (retries
-- with backoff). last_status is the HTTP status of a delivery's last
-- attempt, for the delivery log of the settings page.
CREATE TABLE webhooks (
	user_id    uuid PRIMARY KEY,
	url        text NOT NULL,
	secret     text NOT NULL,
	created_at timestamptz NOT NULL
);
ALTER TABLE deliveries DROP CONSTRAINT deliveries_channel_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_channel_check CHECK (channel IN ('email', 'line', 'webhook'));
ALTER TABLE deliveries ADD COLUMN last_status int NOT NULL DEFAULT 0;
CREATE INDEX deliveries_user_idx ON deliveries (user_id, channel, id DESC);

-- +goose Down
DROP INDEX deliveries_user_idx;
ALTER TABLE deliveries DROP COLUMN last_status;
DELETE FROM deliveries WHERE channel = 'webhook';
ALTER TABLE deliveries DROP CONSTRAINT deliveries_channel_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_channel_check CHECK (channel IN ('email', 'line'));
DROP TABLE webhooks;
