-- +goose Up
-- A user's calendar link (GET /calendar/{token}.ics): one per user, kept as
-- the SHA-256 of its random token only, so a copy of the database opens no
-- calendar. A new link replaces the row; revoking deletes it.
CREATE TABLE calendar_feeds (
	user_id    text PRIMARY KEY CHECK (user_id <> ''),
	token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
	created_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE calendar_feeds;
