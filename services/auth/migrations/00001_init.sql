-- +goose Up
-- Auth service schema (search_path is the service schema, "auth").

CREATE TABLE users (
	id                  uuid PRIMARY KEY,
	username            text NOT NULL,
	email               text NOT NULL CHECK (email = lower(email)),
	name                text NOT NULL DEFAULT '',
	picture_url         text NOT NULL DEFAULT '',
	-- line_id1 in the API: the LINE user id linked to this account.
	line_id             text,
	-- argon2id PHC string; '' for accounts created through LINE Login.
	password_hash       text NOT NULL DEFAULT '',
	active              boolean NOT NULL DEFAULT false,
	two_step            boolean NOT NULL DEFAULT false,
	created_at          timestamptz NOT NULL,
	verified_at         timestamptz,
	password_changed_at timestamptz,
	updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_key ON users (email);
CREATE UNIQUE INDEX users_line_id_key ON users (line_id) WHERE line_id IS NOT NULL;

-- One-time codes (docs/architecture.md#one-time-codes). At most one live code per
-- (purpose, email); rows without code_hmac only record a send for the
-- throttle and are born invalidated.
CREATE TABLE otp_codes (
	id             bigserial PRIMARY KEY,
	purpose        text NOT NULL CHECK (purpose IN ('registration', 'login', 'password_reset', 'line_link')),
	email          text NOT NULL,
	code_hmac      bytea,
	created_at     timestamptz NOT NULL,
	expires_at     timestamptz NOT NULL,
	-- submissions, incremented atomically before any comparison
	attempts       integer NOT NULL DEFAULT 0,
	-- wrong submissions (for the daily cap)
	failures       integer NOT NULL DEFAULT 0,
	used_at        timestamptz,
	invalidated_at timestamptz,
	-- login codes: when the password was checked for this challenge
	auth_at        timestamptz
);
CREATE INDEX otp_codes_history_idx ON otp_codes (purpose, email, created_at DESC);
CREATE UNIQUE INDEX otp_codes_live_key ON otp_codes (purpose, email)
	WHERE used_at IS NULL AND invalidated_at IS NULL;
CREATE INDEX otp_codes_created_idx ON otp_codes (created_at);

-- Refresh-token families: one per sign-in, rotated tokens within.
CREATE TABLE token_families (
	id             uuid PRIMARY KEY,
	user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	provider       text NOT NULL CHECK (provider IN ('password', 'line')),
	created_at     timestamptz NOT NULL,
	expires_at     timestamptz NOT NULL,
	revoked_at     timestamptz,
	revoked_reason text
);
CREATE INDEX token_families_user_idx ON token_families (user_id) WHERE revoked_at IS NULL;
CREATE INDEX token_families_expires_idx ON token_families (expires_at);

-- Refresh tokens, stored as SHA-256 only.
CREATE TABLE refresh_tokens (
	token_hash bytea PRIMARY KEY,
	family_id  uuid NOT NULL REFERENCES token_families (id) ON DELETE CASCADE,
	created_at timestamptz NOT NULL,
	rotated_at timestamptz,
	child_hash bytea
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);

-- Pending LINE authorizations (state, nonce, PKCE verifier), 10 minutes.
CREATE TABLE line_login_states (
	state_hash    bytea PRIMARY KEY,
	nonce         text NOT NULL,
	code_verifier text NOT NULL,
	redirect_to   text NOT NULL DEFAULT '/',
	user_id       uuid,
	created_at    timestamptz NOT NULL,
	expires_at    timestamptz NOT NULL
);
CREATE INDEX line_login_states_expires_idx ON line_login_states (expires_at);

-- Verified LINE identities waiting to be linked by an e-mailed code.
CREATE TABLE line_link_requests (
	token_hash  bytea PRIMARY KEY,
	line_id     text NOT NULL,
	email       text NOT NULL DEFAULT '',
	name        text NOT NULL DEFAULT '',
	picture_url text NOT NULL DEFAULT '',
	expires_at  timestamptz NOT NULL
);
CREATE INDEX line_link_requests_expires_idx ON line_link_requests (expires_at);

-- Development keys, generated once when AUTH_SIGNING_KEY / OTP_HMAC_KEY are
-- unset so that restarts keep sessions. Production passes keys by env.
CREATE TABLE signing_keys (
	kid        text PRIMARY KEY,
	seed       bytea NOT NULL CHECK (length(seed) = 32),
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE server_secrets (
	name       text PRIMARY KEY,
	value      bytea NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);
