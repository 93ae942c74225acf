-- +goose Up
-- Bell notifications (docs/product.md#notification,
-- docs/architecture.md#notifications-and-realtime). PostgreSQL is the truth:
-- the unread count is always counted from these rows, never stored. dedup_key
-- makes every writer idempotent: an event delivered twice, or a project
-- matching the same saved search twice, finds its row already there.
CREATE TABLE notifications (
	id          uuid PRIMARY KEY,
	seq         bigint GENERATED ALWAYS AS IDENTITY, -- insertion order within one instant
	user_id     uuid NOT NULL,
	dedup_key   text NOT NULL,
	category    text NOT NULL,
	priority    text NOT NULL,
	type        text NOT NULL,
	title       text NOT NULL,
	message     text NOT NULL,
	project_id  text NOT NULL DEFAULT '',
	link        text NOT NULL DEFAULT '',
	is_read     boolean NOT NULL DEFAULT false,
	read_at     timestamptz,
	-- archived notifications leave the list and the count but stay stored
	archived_at timestamptz,
	created_at  timestamptz NOT NULL,
	UNIQUE (user_id, dedup_key)
);
CREATE INDEX notifications_list_idx ON notifications (user_id, created_at DESC, seq DESC) WHERE archived_at IS NULL;
CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE NOT is_read AND archived_at IS NULL;

-- Who follows which project (is_interestToStepChk of an active record),
-- kept from interests.v1.interest.changed; changed_at orders late events.
CREATE TABLE follows (
	user_id    uuid NOT NULL,
	project_id text NOT NULL,
	following  boolean NOT NULL,
	changed_at timestamptz NOT NULL,
	PRIMARY KEY (project_id, user_id)
);

-- Channel settings; a user without a row has the defaults (domain.DefaultSettings).
CREATE TABLE settings (
	user_id               uuid PRIMARY KEY,
	bell_enabled          boolean NOT NULL,
	email_enabled         boolean NOT NULL,
	email_digest          text NOT NULL,
	line_enabled          boolean NOT NULL,
	line_user_id          text NOT NULL,
	notify_announcements  boolean NOT NULL,
	notify_search_matches boolean NOT NULL,
	notify_payments       boolean NOT NULL,
	updated_at            timestamptz NOT NULL
);

-- +goose Down
DROP TABLE settings;
DROP TABLE follows;
DROP TABLE notifications;
