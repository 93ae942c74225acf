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

-- Mail decided in a transaction (receipts, reminders), sent after it by
-- any replica with retries (pkg/mail's Queue: the same outbox as auth's);
-- a body is erased once it is sent or given up.
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

-- +goose Down
DROP TABLE mail_outbox;
DROP TABLE pass_reminders;
DROP INDEX subscriptions_end_idx;
ALTER TABLE checkouts DROP COLUMN email;
ALTER TABLE subscriptions DROP COLUMN next_end_date, DROP COLUMN next_provider_subscription_id,
    DROP COLUMN next_method, DROP COLUMN next_period, DROP COLUMN next_tier, DROP COLUMN email;
