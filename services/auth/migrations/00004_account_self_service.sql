-- +goose Up
-- Self-service for the account (issue 10 settings, PDPA; issue 12 "sign out
-- everywhere"): sessions show their device and last use, accounts can be
-- deleted with an e-mailed code, and contact-us messages are kept.
ALTER TABLE token_families
	ADD COLUMN device       text NOT NULL DEFAULT '',
	ADD COLUMN last_used_at timestamptz;

ALTER TABLE otp_codes DROP CONSTRAINT IF EXISTS otp_codes_purpose_check;
ALTER TABLE otp_codes ADD CONSTRAINT otp_codes_purpose_check
	CHECK (purpose IN ('registration', 'login', 'password_reset', 'line_link', 'account_delete'));

-- A deleted account keeps its row (ids referenced by payment records that the
-- Revenue Code makes us keep) but none of its personal data.
ALTER TABLE users ADD COLUMN deleted_at timestamptz;

CREATE TABLE contact_messages (
	id         bigserial PRIMARY KEY,
	user_id    uuid REFERENCES users (id) ON DELETE SET NULL,
	email      text NOT NULL,
	topic      text NOT NULL,
	message    text NOT NULL,
	created_at timestamptz NOT NULL
);
CREATE INDEX contact_messages_user_idx ON contact_messages (user_id, created_at);

-- +goose Down
DROP TABLE contact_messages;
ALTER TABLE users DROP COLUMN deleted_at;
ALTER TABLE otp_codes DROP CONSTRAINT otp_codes_purpose_check;
ALTER TABLE otp_codes ADD CONSTRAINT otp_codes_purpose_check
	CHECK (purpose IN ('registration', 'login', 'password_reset', 'line_link'));
ALTER TABLE token_families DROP COLUMN last_used_at, DROP COLUMN device;
