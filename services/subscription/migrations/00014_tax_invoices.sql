-- +goose Up
-- Tax invoices that name the buyer (issue 22).
--
-- A checkout may fix who its receipt names: the buyer the payer gave at
-- checkout, or nobody (a receipt to the e-mail only). buyer_fixed false:
-- the billing profile as it stands when the payment succeeds (checkouts
-- opened before this, and REST clients that do not say).
ALTER TABLE checkouts
    ADD COLUMN buyer_fixed       boolean NOT NULL DEFAULT false,
    ADD COLUMN buyer_kind        text,
    ADD COLUMN buyer_name        text,
    ADD COLUMN buyer_tax_id      text,
    ADD COLUMN buyer_head_office boolean,
    ADD COLUMN buyer_branch      text,
    ADD COLUMN buyer_address     text;

-- A receipt issued without a buyer may be reissued once as a replacement
-- tax invoice (ใบกำกับภาษีฉบับแทน) naming one: a receipt of its own, with
-- the next number, citing the original (replaces), which stays as it was.
-- The replacement shares the original's payment; each payment has one
-- original, and each original at most one replacement.
ALTER TABLE receipts ADD COLUMN replaces text UNIQUE REFERENCES receipts (number);
ALTER TABLE receipts DROP CONSTRAINT receipts_payment_id_key;
CREATE UNIQUE INDEX receipts_payment_original ON receipts (payment_id) WHERE replaces IS NULL;

-- +goose Down
DELETE FROM receipts WHERE replaces IS NOT NULL;
DROP INDEX receipts_payment_original;
ALTER TABLE receipts ADD CONSTRAINT receipts_payment_id_key UNIQUE (payment_id);
ALTER TABLE receipts DROP COLUMN replaces;
ALTER TABLE checkouts DROP COLUMN buyer_address, DROP COLUMN buyer_branch, DROP COLUMN buyer_head_office,
    DROP COLUMN buyer_tax_id, DROP COLUMN buyer_name, DROP COLUMN buyer_kind, DROP COLUMN buyer_fixed;
