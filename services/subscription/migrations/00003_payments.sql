-- +goose Up
-- Checkout, payments and the provider's events (issue 10). Money in satang.

-- A started checkout; idempotency_key makes a double click one session.
CREATE TABLE checkouts (
    session_id      text PRIMARY KEY,
    provider        text NOT NULL,
    user_id         text NOT NULL,
    tier            text NOT NULL REFERENCES tiers(tier),
    period          text NOT NULL CHECK (period IN ('monthly','yearly')),
    method          text NOT NULL CHECK (method IN ('card','promptpay')),
    amount_satang   bigint NOT NULL CHECK (amount_satang > 0),
    url             text NOT NULL,
    status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open','paid','failed')),
    idempotency_key text NOT NULL UNIQUE,
    created_at      timestamptz NOT NULL
);
CREATE INDEX checkouts_user_idx ON checkouts (user_id, created_at DESC);

-- Every payment, paid or failed; receipts number the paid ones in order.
CREATE SEQUENCE receipt_no_seq;
CREATE TABLE payments (
    id            uuid PRIMARY KEY,
    user_id       text NOT NULL,
    tier          text NOT NULL,
    period        text NOT NULL,
    method        text NOT NULL,
    amount_satang bigint NOT NULL,
    status        text NOT NULL CHECK (status IN ('succeeded','failed')),
    provider_ref  text NOT NULL,          -- checkout session or invoice id
    receipt_no    bigint UNIQUE,          -- set for succeeded payments
    created_at    timestamptz NOT NULL,
    UNIQUE (provider_ref, status)
);
CREATE INDEX payments_user_idx ON payments (user_id, created_at DESC);

-- Events already applied (a replay changes nothing).
CREATE TABLE provider_events (
    event_id    text PRIMARY KEY,
    type        text NOT NULL,
    created_at  timestamptz NOT NULL,
    received_at timestamptz NOT NULL
);

-- The provider's recurring subscriptions: who owns them and their latest
-- state, with the time of the event that set it (older events are ignored).
CREATE TABLE provider_subscriptions (
    subscription_id      text PRIMARY KEY,
    user_id              text NOT NULL,
    status               text NOT NULL,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    state_at             timestamptz NOT NULL
);

ALTER TABLE subscriptions
    ADD COLUMN period text,
    ADD COLUMN method text,
    ADD COLUMN provider_subscription_id text,
    ADD COLUMN cancel_at_period_end boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE subscriptions DROP COLUMN cancel_at_period_end, DROP COLUMN provider_subscription_id,
    DROP COLUMN method, DROP COLUMN period;
DROP TABLE provider_subscriptions;
DROP TABLE provider_events;
DROP TABLE payments;
DROP SEQUENCE receipt_no_seq;
DROP TABLE checkouts;
