-- +goose Up
-- Checkouts a user started, for the per-account limit on starting them
-- (each makes a session at the payment provider). Rows older than the
-- window are deleted as the user's next attempt is counted.
CREATE TABLE checkout_attempts (
    user_id text NOT NULL,
    at      timestamptz NOT NULL
);
CREATE INDEX checkout_attempts_user_at ON checkout_attempts (user_id, at);

-- +goose Down
DROP TABLE checkout_attempts;
