-- +goose Up
-- Plan lifecycle (issue 10): a downgrade waiting for the end of the paid
-- period, the address receipts and reminders go to, the expiry job's index,
-- reminders already sent and the mail queue.
ALTER TABLE subscriptions
    ADD COLUMN email                         text NOT NULL DEFAULT '',
    ADD COLUMN next_tier                     text REFERENCES tiers(tier),
    ADD COLUMN next_period                   text,
    ADD COLUMN next_method                   text,
    ADD COLUMN next_provider_subscription_id text,
    ADD COLUMN next_end_date                 date;
ALTER TABLE checkouts ADD COLUMN email text NOT NULL DEFAULT '';

-- The expiry job reads active plans by end date.
CREATE INDEX subscriptions_end_idx ON subscriptions (end_date) WHERE status = 'active';

-- One reminder per plan end and kind, written with its mail.
CREATE TABLE pass_reminders (
    user_id  text NOT NULL,
    end_date date NOT NULL,
    kind     text NOT NULL CHECK (kind IN ('7d', '1d')),
    sent_at  timestamptz NOT NULL,
    PRIMARY KEY (user_id, end_date, kind)
);

-- Mail decided in a transaction (receipts, reminders), sent after it by a
-- leased worker: claimed rows move next_attempt_at ahead, so one replica
-- sends each; a failure backs off.
CREATE TABLE mail_queue (
    id              uuid PRIMARY KEY,
    recipient       text NOT NULL,
    subject         text NOT NULL,
    text_body       text NOT NULL,
    html_body       text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    attempts        int NOT NULL DEFAULT 0,
    sent_at         timestamptz,
    last_error      text
);
CREATE INDEX mail_queue_due_idx ON mail_queue (next_attempt_at) WHERE sent_at IS NULL;

-- +goose Down
DROP TABLE mail_queue;
DROP TABLE pass_reminders;
DROP INDEX subscriptions_end_idx;
ALTER TABLE checkouts DROP COLUMN email;
ALTER TABLE subscriptions DROP COLUMN next_end_date, DROP COLUMN next_provider_subscription_id,
    DROP COLUMN next_method, DROP COLUMN next_period, DROP COLUMN next_tier, DROP COLUMN email;
