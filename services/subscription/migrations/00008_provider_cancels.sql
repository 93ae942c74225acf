-- +goose Up
-- A card subscription a new plan replaced must stop at the provider (now
-- for an upgrade, at its period's end for a downgrade). The request is
-- written in the fulfilment's transaction and tried after it commits; a
-- failure is retried by the provider-cancel job with back-off until the
-- provider confirms (or answers that the subscription is gone already).
-- A worker leases a row by moving next_attempt_at past the call.
CREATE TABLE provider_cancels (
    subscription_id text PRIMARY KEY,
    at_period_end   boolean NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text,
    created_at      timestamptz NOT NULL,
    done_at         timestamptz
);
CREATE INDEX provider_cancels_due ON provider_cancels (next_attempt_at) WHERE done_at IS NULL;

-- +goose Down
DROP TABLE provider_cancels;
