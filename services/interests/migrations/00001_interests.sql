-- +goose Up
-- A user's record on a project (docs/product.md#user-interest and
-- docs/product.md#bid-per-project): one row, active or archived, never both. Money is exact:
-- satang and hundredths of a percent.
CREATE TABLE interests (
	user_id          text NOT NULL CHECK (user_id <> ''),
	project_id       text NOT NULL CHECK (project_id ~ '^[0-9]{11}$'),
	is_like          boolean NOT NULL DEFAULT false,
	is_follow        boolean NOT NULL DEFAULT false,
	is_fill20        boolean NOT NULL DEFAULT false CHECK (NOT is_fill20 OR is_follow),
	is_bid           boolean NOT NULL DEFAULT false,
	archived         boolean NOT NULL DEFAULT false,
	bid_satang       bigint CHECK (bid_satang > 0),
	reduction_bp     integer CHECK (reduction_bp >= 0 AND reduction_bp < 10000),
	bid_updated_at   timestamptz,
	comment_count    integer NOT NULL DEFAULT 0 CHECK (comment_count >= 0),
	created_at       timestamptz NOT NULL DEFAULT now(),
	updated_at       timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (user_id, project_id)
);

-- The two lists, newest change first.
CREATE INDEX interests_list ON interests (user_id, archived, updated_at DESC, project_id);

CREATE TABLE comments (
	id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
	user_id     text NOT NULL,
	project_id  text NOT NULL,
	body        text NOT NULL CHECK (length(body) BETWEEN 1 AND 2000),
	created_at  timestamptz NOT NULL DEFAULT now(),
	updated_at  timestamptz NOT NULL DEFAULT now(),
	FOREIGN KEY (user_id, project_id) REFERENCES interests (user_id, project_id) ON DELETE CASCADE
);

CREATE INDEX comments_by_record ON comments (user_id, project_id, created_at, id);
