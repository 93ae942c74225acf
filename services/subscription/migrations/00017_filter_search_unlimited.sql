-- +goose Up
-- Filtering the project database (the listing and search pages) is open to
-- everybody, signed in or not, so no tier can be held to a number of them:
-- database_filter_search is unlimited (-1) in every tier, and the pricing
-- cards no longer list it as a limit (docs/product.md#tiers-and-plan-limits).
UPDATE tiers SET database_filter_search = -1;

-- +goose Down
UPDATE tiers SET database_filter_search = CASE tier
    WHEN 'free' THEN 20 WHEN 'starter' THEN 200 WHEN 'pro' THEN 1000 ELSE -1 END;
