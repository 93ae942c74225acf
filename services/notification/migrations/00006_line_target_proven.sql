-- +goose Up
-- LINE alerts go only to the LINE user the account proved through LINE Login
-- (the auth service's line_id1); ids typed into the settings are forgotten.
UPDATE settings SET line_user_id = '' WHERE line_user_id <> '';

-- +goose Down
SELECT 1;
