-- +goose Up
-- The address of the latest change applied, so a checkout opened with an
-- access token issued before that change (valid up to 15 minutes) takes
-- the new address, not the token's. A deleted account keeps a row with no
-- address at 'infinity', so a change arriving late stores nothing.
ALTER TABLE email_changes ADD COLUMN email text;

-- +goose Down
DELETE FROM email_changes WHERE changed_at = 'infinity';
ALTER TABLE email_changes DROP COLUMN email;
