-- +goose Up
-- The time of the latest award event applied to each project (recorded or
-- withdrawn, docs/market.md#withdrawn-awards): an older event delivered
-- after a newer one (a retried delivery overtaken by the next event) is
-- ignored, so a withdrawn award is not brought back by its own older
-- AwardRecorded. Kept after a withdrawal, as the withdrawal's tombstone.
CREATE TABLE award_versions (
	project_id  text PRIMARY KEY,
	occurred_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE award_versions;
