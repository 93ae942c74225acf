-- +goose Up
-- What each tier includes, as values the services enforce and the pricing
-- cards word (the app builds the Thai lines from these): one source. The
-- free-text feature lines are gone, since they could disagree with the
-- limits (they said one saved search while three were allowed).
-- normal_search_save / overnight_search_save: saved searches of each kind a
-- user may hold at once (-1 unlimited, 0 not in the tier). The booleans
-- gate a channel or a feature. Later entitlements (market benchmarks,
-- supplier lists, watchlist sizes, team seats) are more columns here.
ALTER TABLE tiers
    ADD COLUMN normal_search_save int NOT NULL DEFAULT 0 CHECK (normal_search_save >= -1),
    ADD COLUMN email_alerts       boolean NOT NULL DEFAULT false,
    ADD COLUMN line_alerts        boolean NOT NULL DEFAULT false,
    ADD COLUMN ocds_export        boolean NOT NULL DEFAULT false,
    ADD COLUMN account_manager    boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT tiers_overnight_search_save_check CHECK (overnight_search_save >= -1);

UPDATE tiers SET normal_search_save = 1,   overnight_search_save = 0                                        WHERE tier = 'free';
UPDATE tiers SET normal_search_save = 5,   email_alerts = true                                              WHERE tier = 'starter';
UPDATE tiers SET normal_search_save = 30,  email_alerts = true, line_alerts = true, ocds_export = true      WHERE tier = 'pro';
UPDATE tiers SET normal_search_save = 200, email_alerts = true, line_alerts = true, ocds_export = true,
                 account_manager = true                                                                     WHERE tier = 'enterprise';

ALTER TABLE tiers DROP COLUMN features;

-- Saved overnight searches were counted here and released on delete; the
-- projects service now counts the searches it holds.
DELETE FROM usage_counters WHERE kind = 'overnight_search_save';

-- +goose Down
ALTER TABLE tiers ADD COLUMN features text[] NOT NULL DEFAULT '{}';
UPDATE tiers SET overnight_search_save = 1 WHERE tier = 'free';
ALTER TABLE tiers DROP CONSTRAINT tiers_overnight_search_save_check,
    DROP COLUMN account_manager, DROP COLUMN ocds_export, DROP COLUMN line_alerts,
    DROP COLUMN email_alerts, DROP COLUMN normal_search_save;
