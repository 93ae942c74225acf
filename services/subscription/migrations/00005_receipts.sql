-- +goose Up
-- Receipts / tax invoices (issue 10): the buyer's billing profile, one
-- number counter per Buddhist year (updated in the payment's transaction,
-- so numbers have no gaps), and every issued receipt with the buyer as
-- the profile stood at payment time.
CREATE TABLE billing_profiles (
    user_id     text PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('company', 'person')),
    name        text NOT NULL,
    tax_id      text NOT NULL CHECK (tax_id ~ '^[0-9]{13}$'),
    head_office boolean NOT NULL DEFAULT false,
    branch      text NOT NULL DEFAULT '' CHECK (branch = '' OR branch ~ '^[0-9]{5}$'),
    address     text NOT NULL,
    updated_at  timestamptz NOT NULL
);

CREATE TABLE receipt_counters (
    buddhist_year int PRIMARY KEY,
    last          bigint NOT NULL CHECK (last > 0)
);

CREATE TABLE receipts (
    number            text PRIMARY KEY,
    payment_id        uuid NOT NULL UNIQUE REFERENCES payments(id),
    user_id           text NOT NULL,
    issued_at         timestamptz NOT NULL,
    description       text NOT NULL,
    tier              text NOT NULL,
    period            text NOT NULL,
    method            text NOT NULL,
    amount_satang     bigint NOT NULL CHECK (amount_satang >= 0),
    vat_satang        bigint NOT NULL,
    base_satang       bigint NOT NULL,
    buyer_kind        text,             -- NULL: no billing profile at payment time
    buyer_name        text,
    buyer_tax_id      text,
    buyer_head_office boolean,
    buyer_branch      text,
    buyer_address     text,
    buyer_email       text NOT NULL DEFAULT '',
    CHECK (vat_satang + base_satang = amount_satang)
);
CREATE INDEX receipts_user_idx ON receipts (user_id, issued_at DESC);

-- Numbers now restart each Buddhist year: receipt_no is the year's
-- sequence, receipt_number the document number (RC2569-000001).
ALTER TABLE payments DROP CONSTRAINT payments_receipt_no_key;
ALTER TABLE payments ADD COLUMN receipt_number text UNIQUE;
DROP SEQUENCE receipt_no_seq;

-- Payments made before this migration get their numbers and receipts in
-- the order they were paid (VAT 7 % included, rounded half up).
WITH numbered AS (
    SELECT id, extract(year FROM (created_at AT TIME ZONE 'UTC') + interval '7 hours')::int + 543 AS be,
           row_number() OVER (PARTITION BY extract(year FROM (created_at AT TIME ZONE 'UTC') + interval '7 hours')
                              ORDER BY created_at, id) AS n
    FROM payments WHERE status = 'succeeded'
)
UPDATE payments p SET receipt_no = numbered.n, receipt_number = 'RC' || numbered.be || '-' || lpad(numbered.n::text, 6, '0')
FROM numbered WHERE p.id = numbered.id;
UPDATE payments SET receipt_no = NULL WHERE status <> 'succeeded';
INSERT INTO receipt_counters (buddhist_year, last)
SELECT substr(receipt_number, 3, 4)::int, max(receipt_no) FROM payments WHERE receipt_number IS NOT NULL GROUP BY 1;
INSERT INTO receipts (number, payment_id, user_id, issued_at, description, tier, period, method,
                      amount_satang, vat_satang, base_satang)
SELECT p.receipt_number, p.id, p.user_id, p.created_at,
       'แพ็กเกจ' || t.label || CASE WHEN p.period = 'yearly' THEN ' รายปี (365 วัน)' ELSE ' รายเดือน (30 วัน)' END,
       p.tier, p.period, p.method, p.amount_satang,
       (p.amount_satang * 14 + 107) / 214, p.amount_satang - (p.amount_satang * 14 + 107) / 214
FROM payments p JOIN tiers t ON t.tier = p.tier WHERE p.receipt_number IS NOT NULL;

-- +goose Down
DROP TABLE receipts;
DROP TABLE receipt_counters;
DROP TABLE billing_profiles;
ALTER TABLE payments DROP COLUMN receipt_number;
CREATE SEQUENCE receipt_no_seq;

