-- +goose Up
-- E-mail change codes name the account that asked for them, so that one
-- account cannot have codes mailed to many addresses.
ALTER TABLE otp_codes ADD COLUMN owner_id uuid;
CREATE INDEX otp_codes_owner_idx ON otp_codes (owner_id, created_at) WHERE owner_id IS NOT NULL;

-- +goose Down
ALTER TABLE otp_codes DROP COLUMN owner_id;
