-- +goose Up
-- The card subscription the provider reported ended when the plan tried to
-- cancel or resume it (cancelled at the provider, its webhook not here
-- yet). While it is the plan's provider_subscription_id the plan cannot be
-- resumed; a new subscription id makes it moot without a reset.
ALTER TABLE subscriptions ADD COLUMN provider_ended_id text;

-- +goose Down
ALTER TABLE subscriptions DROP COLUMN provider_ended_id;
