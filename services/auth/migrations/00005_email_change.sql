-- +goose Up
-- Changing the account's e-mail is confirmed by a code sent to the new address.
ALTER TABLE otp_codes DROP CONSTRAINT IF EXISTS otp_codes_purpose_check;
ALTER TABLE otp_codes ADD CONSTRAINT otp_codes_purpose_check
	CHECK (purpose IN ('registration', 'login', 'password_reset', 'line_link', 'account_delete', 'email_change'));

-- +goose Down
DELETE FROM otp_codes WHERE purpose = 'email_change';
ALTER TABLE otp_codes DROP CONSTRAINT otp_codes_purpose_check;
ALTER TABLE otp_codes ADD CONSTRAINT otp_codes_purpose_check
	CHECK (purpose IN ('registration', 'login', 'password_reset', 'line_link', 'account_delete'));
