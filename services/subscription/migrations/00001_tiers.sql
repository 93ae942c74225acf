-- +goose Up
-- Tiers are data, not code (docs/architecture.md#tiers-are-data). -1 means unlimited.
CREATE TABLE tiers (
    tier                     text PRIMARY KEY,
    label                    text NOT NULL,
    rank                     int  NOT NULL UNIQUE,
    price_month_satang       bigint NOT NULL CHECK (price_month_satang >= 0),
    search_combination_day   int NOT NULL,
    search_combination_month int NOT NULL,
    database_filter_search   int NOT NULL,
    overnight_search_save    int NOT NULL,
    explore_live_search      int NOT NULL,
    features                 text[] NOT NULL DEFAULT '{}'
);

INSERT INTO tiers VALUES
 ('free',       'ฟรี',      0,       0,   3,   30,   20,   1,    0,
  ARRAY['ค้นหาโครงการจัดซื้อจัดจ้างภาครัฐทั้งหมด','บันทึกเงื่อนไขค้นหา 1 ชุด','แจ้งเตือนในระบบ (กระดิ่ง)']),
 ('starter',    'เริ่มต้น',  1,   49000,  10,  200,  200,   5,   10,
  ARRAY['ทุกอย่างในแพ็กเกจฟรี','บันทึกเงื่อนไขค้นหา 5 ชุด','ค้นหาข้ามคืนอัตโนมัติ','แจ้งเตือนทางอีเมล']),
 ('pro',        'มืออาชีพ', 2,  149000,  50, 1000, 1000,  30,  100,
  ARRAY['ทุกอย่างในแพ็กเกจเริ่มต้น','บันทึกเงื่อนไขค้นหา 30 ชุด','แจ้งเตือนผ่าน LINE','ส่งออกข้อมูล OCDS']),
 ('enterprise', 'องค์กร',    3,  499000,  -1,   -1,   -1, 200, 1000,
  ARRAY['ทุกอย่างในแพ็กเกจมืออาชีพ','ค้นหาไม่จำกัด','บันทึกเงื่อนไขค้นหา 200 ชุด','ผู้ดูแลบัญชีเฉพาะ']);

CREATE TABLE subscriptions (
    user_id             text PRIMARY KEY,
    tier                text NOT NULL REFERENCES tiers(tier),
    status              text NOT NULL CHECK (status IN ('active','expired','cancelled')),
    start_date          date NOT NULL,
    end_date            date,
    last_payment_date   date,
    last_payment_satang bigint,
    updated_at          timestamptz NOT NULL DEFAULT now()
);
