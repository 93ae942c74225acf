-- +goose Up
-- A tax invoice shows the seller as it stood when it was issued: the
-- seller's name, tax id, branch and address are kept with each receipt
-- (a later move or rename must not change documents already issued).
ALTER TABLE receipts
    ADD COLUMN seller_name        text NOT NULL DEFAULT 'บริษัท บิดเรดาร์ (ประเทศไทย) จำกัด',
    ADD COLUMN seller_tax_id      text NOT NULL DEFAULT '0105559123454',
    ADD COLUMN seller_head_office boolean NOT NULL DEFAULT true,
    ADD COLUMN seller_branch      text NOT NULL DEFAULT '',
    ADD COLUMN seller_address     text NOT NULL DEFAULT 'เลขที่ 999 อาคารบิดเรดาร์ ชั้น 10 ถนนพระรามที่ 4 แขวงสีลม เขตบางรัก กรุงเทพมหานคร 10500';
ALTER TABLE receipts
    ALTER COLUMN seller_name DROP DEFAULT,
    ALTER COLUMN seller_tax_id DROP DEFAULT,
    ALTER COLUMN seller_head_office DROP DEFAULT,
    ALTER COLUMN seller_branch DROP DEFAULT,
    ALTER COLUMN seller_address DROP DEFAULT;

-- +goose Down
ALTER TABLE receipts DROP COLUMN seller_name, DROP COLUMN seller_tax_id, DROP COLUMN seller_head_office,
    DROP COLUMN seller_branch, DROP COLUMN seller_address;
