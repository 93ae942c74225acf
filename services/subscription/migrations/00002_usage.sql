-- +goose Up
-- Usage against a tier's limits. period is 'day' or 'month' (window starting at
-- period_start, Asia/Bangkok) or 'standing' (a count held, e.g. saved overnight searches).
CREATE TABLE usage_counters (
    user_id      text NOT NULL,
    kind         text NOT NULL,
    period       text NOT NULL CHECK (period IN ('day','month','standing')),
    period_start date NOT NULL,
    used         int  NOT NULL CHECK (used >= 0),
    PRIMARY KEY (user_id, kind, period, period_start)
);
