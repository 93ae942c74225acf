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
-- Not undone: the older mail and provider-cancel tables (their shapes are
-- in 00004 and 00008) are not made again, and the code before this version
-- needs them: going back means restoring a backup, so a roll-back stops
-- here rather than leave a schema no version runs on.
-- +goose StatementBegin
DO $$ BEGIN RAISE EXCEPTION 'migration 00015 cannot be rolled back: restore a backup'; END $$;
-- +goose StatementEnd
