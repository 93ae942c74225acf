-- +goose Up
-- A team, its members, invitations, pipeline, keys and calendar link
-- (docs/architecture.md#teams).
CREATE TABLE teams (
	id            uuid PRIMARY KEY,
	name          text NOT NULL,
	owner_user_id uuid NOT NULL,
	created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE members (
	team_id   uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
	user_id   uuid NOT NULL,
	role      text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
	username  text NOT NULL DEFAULT '',
	email     text NOT NULL DEFAULT '',
	joined_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (team_id, user_id)
);
CREATE INDEX members_user ON members (user_id);

-- The code is kept as sha256(id || code) only; attempts counts wrong codes.
CREATE TABLE invitations (
	id                 uuid PRIMARY KEY,
	team_id            uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
	email              text NOT NULL,
	role               text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
	code_hash          bytea NOT NULL,
	attempts           int NOT NULL DEFAULT 0,
	invited_by_user_id uuid NOT NULL,
	created_at         timestamptz NOT NULL,
	expires_at         timestamptz NOT NULL,
	closed_at          timestamptz
);
CREATE INDEX invitations_pending ON invitations (email) WHERE closed_at IS NULL;
CREATE UNIQUE INDEX invitations_one_pending ON invitations (team_id, email) WHERE closed_at IS NULL;

CREATE TABLE pipeline_items (
	team_id       uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
	project_id    text NOT NULL,
	stage         text NOT NULL,
	owner_user_id uuid,
	due_date      date,
	bid_satang    bigint CHECK (bid_satang > 0),
	note          text NOT NULL DEFAULT '',
	created_at    timestamptz NOT NULL,
	updated_at    timestamptz NOT NULL,
	updated_by    text NOT NULL,
	PRIMARY KEY (team_id, project_id)
);
CREATE INDEX pipeline_items_changed ON pipeline_items (team_id, updated_at DESC);

-- Kept when the item is deleted (no foreign key to the item).
CREATE TABLE pipeline_history (
	id         bigserial PRIMARY KEY,
	team_id    uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
	project_id text NOT NULL,
	at         timestamptz NOT NULL,
	actor      text NOT NULL,
	field      text NOT NULL,
	from_value text NOT NULL,
	to_value   text NOT NULL
);
CREATE INDEX pipeline_history_item ON pipeline_history (team_id, project_id, id DESC);

CREATE TABLE comments (
	id         uuid PRIMARY KEY,
	team_id    uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
	project_id text NOT NULL,
	user_id    text NOT NULL,
	username   text NOT NULL,
	text       text NOT NULL,
	mentions   text[] NOT NULL DEFAULT '{}',
	created_at timestamptz NOT NULL
);
CREATE INDEX comments_item ON comments (team_id, project_id, created_at);

-- The key is kept as its sha256 only; window_* is its rate-limit window.
CREATE TABLE api_keys (
	id                 uuid PRIMARY KEY,
	team_id            uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
	name               text NOT NULL,
	scopes             text[] NOT NULL,
	key_hash           bytea NOT NULL UNIQUE,
	prefix             text NOT NULL,
	created_by_user_id uuid NOT NULL,
	created_at         timestamptz NOT NULL,
	last_used_at       timestamptz,
	revoked_at         timestamptz,
	window_start       timestamptz,
	window_count       int NOT NULL DEFAULT 0
);
CREATE INDEX api_keys_team ON api_keys (team_id);

CREATE TABLE calendar_feeds (
	team_id    uuid PRIMARY KEY REFERENCES teams (id) ON DELETE CASCADE,
	token_hash bytea NOT NULL UNIQUE,
	created_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE calendar_feeds, api_keys, comments, pipeline_history, pipeline_items, invitations, members, teams;
