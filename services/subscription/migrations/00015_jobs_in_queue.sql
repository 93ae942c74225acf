-- +goose Up
-- The service's retried work moves to the job queue every service shares
-- (pkg/queue's queue_jobs, created before these migrations run).
--
-- Mail not yet sent; the service's own copy of the mail table goes.
INSERT INTO queue_jobs (kind, destination, payload, attempts, next_attempt_at, created_at, last_error)
SELECT 'mail', 'mail', jsonb_strip_nulls(jsonb_build_object('to', recipient, 'subject', subject, 'text', body_text, 'html', body_html)),
	attempts, next_attempt_at, created_at, last_error
FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL ORDER BY id;
DROP TABLE mail_outbox;

-- Provider cancels, done or not (a done cancel now still outranks a later
-- stop at the period's end), one job kind each way.
INSERT INTO queue_jobs (kind, key, destination, attempts, next_attempt_at, created_at, done_at, last_error)
SELECT CASE WHEN at_period_end THEN 'subscription.cancel-at-period-end' ELSE 'subscription.cancel-now' END,
	subscription_id, 'provider', attempts, next_attempt_at, created_at, done_at, last_error
FROM provider_cancels ORDER BY created_at;
DROP TABLE provider_cancels;

-- Every active plan with an end date gets its plan-end job, due when the
-- next day begins in Bangkok (UTC+7), as the service puts it with each plan.
INSERT INTO queue_jobs (kind, key, destination, next_attempt_at)
SELECT 'subscription.plan-end', user_id, 'plans', ((end_date + 1)::timestamp AT TIME ZONE 'UTC') - interval '7 hours'
FROM subscriptions WHERE status = 'active' AND end_date IS NOT NULL ORDER BY end_date;

-- +goose Down
DELETE FROM queue_jobs WHERE kind = 'subscription.plan-end';

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
INSERT INTO provider_cancels (subscription_id, at_period_end, attempts, next_attempt_at, last_error, created_at, done_at)
SELECT DISTINCT ON (key) key, kind = 'subscription.cancel-at-period-end', attempts, next_attempt_at, last_error, created_at, done_at
FROM queue_jobs WHERE kind IN ('subscription.cancel-now', 'subscription.cancel-at-period-end')
ORDER BY key, kind = 'subscription.cancel-at-period-end';
DELETE FROM queue_jobs WHERE kind IN ('subscription.cancel-now', 'subscription.cancel-at-period-end');

CREATE TABLE mail_outbox (
	id               bigserial PRIMARY KEY,
	recipient        text NOT NULL,
	subject          text NOT NULL,
	body_text        text,
	body_html        text,
	created_at       timestamptz NOT NULL DEFAULT now(),
	attempts         integer NOT NULL DEFAULT 0,
	next_attempt_at  timestamptz NOT NULL DEFAULT now(),
	sent_at          timestamptz,
	failed_at        timestamptz,
	last_error       text
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
INSERT INTO mail_outbox (recipient, subject, body_text, body_html, created_at, attempts, next_attempt_at, last_error)
SELECT payload->>'to', payload->>'subject', payload->>'text', payload->>'html', created_at, attempts, next_attempt_at, last_error
FROM queue_jobs WHERE kind = 'mail' AND done_at IS NULL AND failed_at IS NULL ORDER BY id;
DELETE FROM queue_jobs WHERE kind = 'mail';
