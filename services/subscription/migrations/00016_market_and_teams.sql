-- +goose Up
-- What each tier includes of bid intelligence (the market service) and of
-- team work (the teams service), as values those services enforce and the
-- pricing cards word, like the entitlements of 00011.
-- market_benchmarks: discount benchmarks and a project's price guide.
-- market_profiles: supplier and agency profiles and the competitor watchlist.
-- watchlist_size: tax ids a user may watch at once (0 when not in the tier).
-- team_seats: members of a team its owner's plan allows, the owner and
-- pending invitations included (0: the tier cannot own a team).
ALTER TABLE tiers
    ADD COLUMN market_benchmarks boolean NOT NULL DEFAULT false,
    ADD COLUMN market_profiles   boolean NOT NULL DEFAULT false,
    ADD COLUMN watchlist_size    int NOT NULL DEFAULT 0 CHECK (watchlist_size >= -1),
    ADD COLUMN team_seats        int NOT NULL DEFAULT 0 CHECK (team_seats >= -1);

UPDATE tiers SET market_benchmarks = true                                                          WHERE tier = 'starter';
UPDATE tiers SET market_benchmarks = true, market_profiles = true, watchlist_size = 20,  team_seats = 3  WHERE tier = 'pro';
UPDATE tiers SET market_benchmarks = true, market_profiles = true, watchlist_size = 200, team_seats = 10 WHERE tier = 'enterprise';

-- +goose Down
ALTER TABLE tiers DROP COLUMN team_seats, DROP COLUMN watchlist_size,
    DROP COLUMN market_profiles, DROP COLUMN market_benchmarks;
