-- +goose Up
-- Calls counted per account for the rate limits (test notifications,
-- webhook changes). Each call of a user trims that user's rows older than
-- the limit's window, so a user keeps at most a limit's worth.
CREATE TABLE rate_events (
	user_id uuid NOT NULL,
	action  text NOT NULL,
	at      timestamptz NOT NULL
);
CREATE INDEX rate_events_user_idx ON rate_events (user_id, action, at);

-- +goose Down
DROP TABLE rate_events;
