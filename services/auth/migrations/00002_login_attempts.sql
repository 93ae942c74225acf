-- +goose Up
-- Password attempts of the last LoginWindow (domain/login_limit.go): an
-- attempt counts as a failure until the account signs in.
CREATE TABLE login_attempts (
	id       bigserial PRIMARY KEY,
	account  text NOT NULL,
	client   text NOT NULL,
	at       timestamptz NOT NULL
);
CREATE INDEX login_attempts_account ON login_attempts (account, at);
CREATE INDEX login_attempts_client ON login_attempts (client, at);

-- +goose Down
-- Safe: attempts are a sliding window of the last minutes, rebuilt by use.
DROP TABLE login_attempts;
