-- +goose Up
-- The instant alerts of an import (an ingestion run), held until it
-- finishes: each batch records here, in its own transaction, the saved
-- searches each of its projects newly matched (keys: 16-byte search ids end
-- to end, as in project_alerts), and the run's end turns them into one
-- alert a user (docs/product.md#instant-alerts), deleting them in the same
-- transaction.
CREATE TABLE import_matches (
    run_id     bigint NOT NULL,
    project_id text   NOT NULL,
    keys       bytea  NOT NULL,
    as_of      bigint NOT NULL,
    PRIMARY KEY (run_id, project_id)
);

-- +goose Down
DROP TABLE import_matches;
