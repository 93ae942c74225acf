-- +goose Up
-- The address receipts and reminders go to follows the account's
-- (auth.v1.user.email_changed): the time of the latest change applied per
-- user, so an older change delivered late does not bring an old address
-- back.
CREATE TABLE email_changes (
    user_id    text PRIMARY KEY,
    changed_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE email_changes;
