/**
 * The Thai message for every error reason the server sends (the services'
 * apperr slugs, the gateway's own reasons: x-error-reason in a Connect
 * error's metadata, "reason" in a REST error body). The server's English
 * detail is never parsed: numbers a message needs (seconds to wait) come as
 * metadata (retry-after).
 *
 * A Go test (stack/reasons_test.go) fails when a reason the server can send
 * has no entry here: it reads this object's keys, one entry a line.
 */
import { messages } from "./th";

/** What a message may use besides its reason. */
export type ReasonContext = {
  /** Seconds from the retry-after metadata, when the server sent one. */
  retryAfter?: number;
};

type ReasonMessage = string | ((ctx: ReasonContext) => string);

const unavailable = messages["Service is currently unavailable. Please try again later."];
const tryLater = "คำขอไม่ถูกต้อง กรุณาลองใหม่อีกครั้ง";
const busy = "ขณะนี้มีผู้ใช้งานจำนวนมาก กรุณาลองใหม่อีกครั้งในอีกสักครู่";

function waitSeconds(ctx: ReasonContext, withSeconds: (n: number) => string, without: string): string {
  return ctx.retryAfter && ctx.retryAfter > 0 ? withSeconds(Math.ceil(ctx.retryAfter)) : without;
}

export const reasons = {
  // ---- subscription: billing profile, receipts, cancel and resume (Thai at the source)
  "billing-kind": "ประเภทผู้ซื้อต้องเป็นนิติบุคคล (company) หรือบุคคลธรรมดา (person)",
  "billing-name": "กรุณากรอกชื่อบริษัทหรือชื่อ-นามสกุล (ไม่เกิน 200 ตัวอักษร)",
  "billing-tax-id": "เลขประจำตัวผู้เสียภาษีต้องเป็นตัวเลข 13 หลัก",
  "billing-tax-id-check": "เลขประจำตัวผู้เสียภาษีไม่ถูกต้อง (เลขตรวจสอบหลักที่ 13 ไม่ตรง)",
  "billing-branch": "เลขที่สาขาต้องเป็นตัวเลข 5 หลัก หรือเลือกสำนักงานใหญ่",
  "billing-address": "กรุณากรอกที่อยู่ (ไม่เกิน 500 ตัวอักษร)",
  "billing-name-chars": "ชื่อมีอักขระควบคุมหรืออักขระกำหนดทิศทางข้อความที่ใช้ไม่ได้ กรุณาพิมพ์ใหม่",
  "billing-address-chars": "ที่อยู่มีอักขระควบคุมหรืออักขระกำหนดทิศทางข้อความที่ใช้ไม่ได้ กรุณาพิมพ์ใหม่",
  "receipt-not-found": "ไม่พบใบเสร็จรับเงินนี้",
  "billing-profile-required": "กรุณากรอกข้อมูลผู้ซื้อ (ชื่อ เลขประจำตัวผู้เสียภาษี สำนักงานใหญ่หรือสาขา และที่อยู่) เพื่อออกใบกำกับภาษี",
  "receipt-reissued": "ใบเสร็จนี้ออกใบกำกับภาษีฉบับแทนไปแล้ว ออกได้ครั้งเดียว",
  "receipt-has-buyer": "ใบเสร็จนี้ระบุชื่อผู้ซื้อแล้ว จึงออกใบกำกับภาษีฉบับแทนไม่ได้",
  "receipt-is-replacement": "ใบนี้เป็นใบกำกับภาษีฉบับแทนอยู่แล้ว ออกแทนซ้ำไม่ได้",
  "cancel-no-plan": "ไม่มีแพ็กเกจแบบชำระเงินที่ใช้งานอยู่",
  "cancel-pass": "แพ็กเกจแบบชำระล่วงหน้า (พร้อมเพย์) ไม่ต่ออายุอัตโนมัติอยู่แล้ว จะสิ้นสุดตามวันหมดอายุ",
  "cancel-already": "แพ็กเกจนี้ยกเลิกการต่ออายุไว้แล้ว",
  "resume-not-cancelled": "แพ็กเกจนี้ไม่ได้ถูกยกเลิกการต่ออายุ",
  "resume-plan-queued": "มีแพ็กเกจที่จองไว้ให้เริ่มใช้เมื่อแพ็กเกจนี้สิ้นสุด จึงต่ออายุแพ็กเกจปัจจุบันไม่ได้",
  "plan-changed": "แพ็กเกจของคุณเพิ่งเปลี่ยน กรุณาโหลดหน้าใหม่แล้วลองอีกครั้ง",
  "resume-provider-ended": "การต่ออายุด้วยบัตรถูกยกเลิกที่ผู้ให้บริการชำระเงินแล้ว จึงต่ออายุแพ็กเกจนี้ไม่ได้ เลือกแพ็กเกจใหม่ได้เมื่อแพ็กเกจนี้สิ้นสุด",
  "checkout-plan-queued": "มีแพ็กเกจที่รอเริ่มใช้หลังแพ็กเกจปัจจุบันอยู่แล้ว กรุณารอให้เริ่มใช้ก่อนซื้อแพ็กเกจอื่น",
  // ---- alerts: overnight searches and outgoing webhooks
  "overnight-run-in-progress": "กำลังค้นหาข้ามคืนอยู่ กรุณาลองใหม่ในอีกสักครู่",
  "overnight-unavailable": unavailable,
  "invalid-webhook-url": "ที่อยู่ webhook ไม่ถูกต้อง ต้องเป็น https:// ที่เข้าถึงได้จากอินเทอร์เน็ต",
  "webhook-not-found": "ยังไม่ได้ตั้งค่า webhook",
  "webhook-changes-too-many": (ctx: ReasonContext) =>
    ctx.retryAfter && ctx.retryAfter > 0
      ? `เปลี่ยน webhook บ่อยเกินไป กรุณาลองใหม่ในอีก ${Math.ceil(ctx.retryAfter / 60)} นาที`
      : "เปลี่ยน webhook บ่อยเกินไป กรุณาลองใหม่ภายหลัง",
  "test-notifications-too-many": (ctx: ReasonContext) =>
    waitSeconds(
      ctx,
      (n) => `ส่งการแจ้งเตือนทดสอบบ่อยเกินไป กรุณารอ ${n} วินาที`,
      "ส่งการแจ้งเตือนทดสอบบ่อยเกินไป กรุณาลองใหม่ในอีกสักครู่",
    ),
  // ---- auth: the account's self-service
  "picture-invalid": "รูปโปรไฟล์ต้องเป็นไฟล์ JPEG หรือ PNG ขนาดไม่เกิน 40 KB และไม่เกิน 1024×1024 พิกเซล",
  "session-not-found": "ไม่พบอุปกรณ์นี้ หรืออุปกรณ์นี้ออกจากระบบไปแล้ว",
  "session-id-invalid": "ไม่พบอุปกรณ์นี้ หรืออุปกรณ์นี้ออกจากระบบไปแล้ว",
  "contact-topic-invalid": "กรุณากรอกเรื่อง ไม่เกิน 100 ตัวอักษร",
  "contact-too-many": "คุณส่งข้อความหลายครั้งในชั่วโมงที่ผ่านมา กรุณาลองใหม่ภายหลัง",
  "contact-message-invalid": "กรุณากรอกข้อความ ไม่เกิน 4,000 ตัวอักษร",
  "email-unchanged": "อีเมลใหม่ต้องไม่ซ้ำกับอีเมลปัจจุบัน",
  "email-change-too-many": (ctx: ReasonContext) =>
    ctx.retryAfter && ctx.retryAfter > 0
      ? `ขอรหัสไปยังอีเมลใหม่หลายที่อยู่เกินไปในชั่วโมงที่ผ่านมา กรุณาลองใหม่ในอีก ${Math.ceil(ctx.retryAfter / 60)} นาที`
      : "ขอรหัสไปยังอีเมลใหม่หลายที่อยู่เกินไปในชั่วโมงที่ผ่านมา กรุณาลองใหม่ภายหลัง",
  "delete-needs-email": "บัญชีนี้ยังไม่มีอีเมลสำหรับรับรหัสยืนยัน กรุณาติดต่อเรา",
  // ---- auth: sign-up and profile fields
  "otp-format": messages["Please enter a valid 6-digit verification code"],
  "email-required": "กรุณากรอกอีเมล",
  "email-invalid": "กรุณากรอกอีเมลให้ถูกต้อง",
  "username-invalid": "ชื่อผู้ใช้ต้องมี 3–32 ตัวอักษร และใช้ได้เฉพาะ a-z, 0-9, . _ -",
  "name-invalid": "ชื่อต้องไม่เกิน 100 ตัวอักษร และไม่มีอักขระควบคุม",
  "password-too-short": "รหัสผ่านต้องมีอย่างน้อย 8 ตัวอักษร",
  "password-too-long": "รหัสผ่านต้องไม่เกิน 128 ตัวอักษร",
  "password-invalid": "รหัสผ่านมีอักขระที่ใช้ไม่ได้",
  "password-common": "รหัสผ่านนี้คาดเดาง่ายเกินไป กรุณาเลือกรหัสผ่านอื่น",
  "password-like-identity": "รหัสผ่านต้องไม่ซ้ำกับชื่อผู้ใช้หรืออีเมล",
  "password-unchanged": "รหัสผ่านใหม่ต้องไม่ซ้ำกับรหัสผ่านเดิม",
  "current-password-incorrect": "รหัสผ่านปัจจุบันไม่ถูกต้อง",
  "credentials-required": "กรุณากรอกชื่อผู้ใช้และรหัสผ่าน",
  "field-too-long": "ข้อมูลบางช่องยาวเกินไป",
  "username-taken": "ชื่อผู้ใช้นี้ถูกใช้งานแล้ว กรุณาเลือกชื่ออื่น",
  "email-taken": "อีเมลนี้ลงทะเบียนไว้แล้ว",
  "user-id-invalid": "รหัสผู้ใช้ไม่ถูกต้อง",
  "two-step-enabled-required": "กรุณาเลือกเปิดหรือปิดการยืนยันตัวตนสองขั้นตอน",
  "redirect-invalid": "ลิงก์ปลายทางไม่ถูกต้อง",
  // ---- auth: one-time codes
  "otp-invalid": "รหัสยืนยันไม่ถูกต้อง กรุณาตรวจสอบแล้วลองอีกครั้ง",
  "otp-expired": messages["OTP has expired. Please request a new one."],
  "otp-too-many-attempts": "กรอกรหัสผิดเกินจำนวนครั้งที่กำหนด กรุณาขอรหัสใหม่",
  "otp-daily-limit": "กรอกรหัสผิดเกินจำนวนครั้งต่อวัน กรุณาลองใหม่พรุ่งนี้",
  "otp-resend-too-soon": (ctx: ReasonContext) =>
    waitSeconds(
      ctx,
      (n) => `เพิ่งส่งรหัสไปเมื่อสักครู่ กรุณารอ ${n} วินาทีก่อนขอรหัสใหม่`,
      "เพิ่งส่งรหัสไปเมื่อสักครู่ กรุณารอสักครู่ก่อนขอรหัสใหม่",
    ),
  "otp-resend-limit": (ctx: ReasonContext) =>
    ctx.retryAfter && ctx.retryAfter > 0
      ? `ขอรหัสบ่อยเกินไป กรุณาลองใหม่ในอีก ${Math.ceil(ctx.retryAfter / 60)} นาที`
      : "ขอรหัสบ่อยเกินไป กรุณาลองใหม่ภายหลัง",
  "mail-unavailable": "ส่งอีเมลไม่สำเร็จ กรุณาลองใหม่ภายหลัง",
  // ---- auth: signing in and sessions
  "bad-credentials": "ชื่อผู้ใช้หรือรหัสผ่านไม่ถูกต้อง",
  "account-inactive": "บัญชียังไม่ได้เปิดใช้งาน กรุณายืนยันอีเมลเพื่อเปิดใช้งานบัญชี",
  "login-throttled": (ctx: ReasonContext) =>
    waitSeconds(
      ctx,
      (n) => `ใส่รหัสผ่านผิดหลายครั้ง กรุณาลองใหม่ในอีก ${n} วินาที`,
      "ใส่รหัสผ่านผิดหลายครั้ง กรุณาลองใหม่ภายหลัง",
    ),
  "login-busy": busy,
  busy,
  "refresh-token-missing": messages["Your session has expired. Please login again."],
  "refresh-token-invalid": messages["Your session has expired. Please login again."],
  "refresh-token-reused": "เซสชันสิ้นสุดแล้ว กรุณาเข้าสู่ระบบอีกครั้ง",
  "session-expired": messages["Your session has expired. Please login again."],
  "session-revoked": "เซสชันสิ้นสุดแล้ว กรุณาเข้าสู่ระบบอีกครั้ง",
  "user-not-found": messages["User not found. Your session is invalid."],
  "permission-denied": "คุณไม่มีสิทธิ์ดูข้อมูลผู้ใช้นี้",
  "authentication-required": messages["Authentication required"],
  "invalid-credentials": messages["Your session has expired. Please login again."],
  "admin-only": "สำหรับผู้ดูแลระบบเท่านั้น",
  "no-access-rule": "ไม่มีสิทธิ์เข้าถึง",
  // internal RPCs refuse a call without a service token (never reached from the app)
  "service-token-required": "ไม่มีสิทธิ์เข้าถึง",
  "invalid-service-token": "ไม่มีสิทธิ์เข้าถึง",
  // ---- auth: LINE
  "line-not-configured": "ยังไม่เปิดให้เข้าสู่ระบบด้วย LINE",
  "line-cancelled": "ยกเลิกการเข้าสู่ระบบด้วย LINE แล้ว",
  "line-state-invalid": "คำขอเข้าสู่ระบบด้วย LINE หมดอายุ กรุณาลองใหม่อีกครั้ง",
  "line-code-required": "คำขอเข้าสู่ระบบด้วย LINE ไม่ครบถ้วน กรุณาลองใหม่อีกครั้ง",
  "line-failed": "เข้าสู่ระบบด้วย LINE ไม่สำเร็จ กรุณาลองอีกครั้ง",
  "line-unavailable": "ติดต่อ LINE ไม่ได้ในขณะนี้ กรุณาลองใหม่ภายหลัง",
  "line-link-expired": "ข้อมูล LINE หมดอายุแล้ว กรุณาเข้าสู่ระบบด้วย LINE อีกครั้ง",
  "line-linked-elsewhere": "บัญชี LINE นี้เชื่อมกับผู้ใช้อื่นอยู่แล้ว",
  "user-has-line": "บัญชีนี้เชื่อมกับบัญชี LINE อื่นอยู่แล้ว",
  // ---- projects and search
  "project-not-found": "ไม่พบโครงการนี้",
  "invalid-project-id": "รหัสโครงการไม่ถูกต้อง ต้องเป็นตัวเลข 11 หลัก",
  "project-ids-required": "กรุณาระบุรหัสโครงการอย่างน้อยหนึ่งรายการ",
  "too-many-project-ids": "ระบุรหัสโครงการมากเกินไปในครั้งเดียว",
  "too-many-ids": "เลือกรายการมากเกินไปในครั้งเดียว",
  // Internal (notification → projects): never shown, but every reason has Thai.
  "invalid-search-keys": "รหัสการค้นหาที่บันทึกไว้ไม่ถูกต้อง",
  "too-many-searches": "ขอข้อมูลการค้นหาที่บันทึกไว้มากเกินไปในครั้งเดียว",
  "invalid-page": "หมายเลขหน้าหรือจำนวนต่อหน้าไม่ถูกต้อง",
  "invalid-criteria": "เงื่อนไขการค้นหาไม่ถูกต้อง กรุณาตรวจสอบอีกครั้ง",
  "unusable-criteria": "ใช้เงื่อนไขการค้นหานี้ไม่ได้ กรุณาระบุอย่างน้อยหนึ่งเงื่อนไข และตรวจสอบช่วงงบประมาณและวันที่",
  "invalid-search-type": "ประเภทการค้นหาไม่ถูกต้อง",
  "criteria-name-too-long": "ชื่อการค้นหายาวได้ไม่เกิน 200 ตัวอักษร",
  "criteria-name-invalid": "ชื่อการค้นหามีอักขระควบคุมหรืออักขระกลับทิศทางที่ใช้ไม่ได้",
  "search-criteria-not-found": "ไม่พบเงื่อนไขการค้นหานี้",
  "search-criteria-changed": "เงื่อนไขการค้นหานี้ถูกแก้ไขจากที่อื่นระหว่างนี้ กรุณาโหลดใหม่แล้วลองอีกครั้ง",
  "limit-reached": messages["Your search limit has been reached. Please try again tomorrow or consider upgrading your plan."],
  "saved-search-limit": "บันทึกเงื่อนไขการค้นหาครบจำนวนที่แพ็กเกจของคุณรองรับแล้ว ลบเงื่อนไขที่ไม่ใช้ หรืออัปเกรดแพ็กเกจเพื่อบันทึกเพิ่ม",
  "duplicate-search": "มีเงื่อนไขการค้นหาแบบเดียวกันบันทึกไว้แล้ว ใช้ชุดเดิมหรือปรับเงื่อนไขให้ต่างออกไป",
  "invalid-user-action": "คำขอตรวจสอบสถานะไม่ถูกต้อง",
  "subscription-unavailable": unavailable,
  "interests-unavailable": unavailable,
  "source-unavailable": unavailable,
  "ingest-url-not-allowed": "ที่อยู่นี้ไม่ใช่แหล่งข้อมูล e-GP ที่อนุญาต",
  "url-required": "กรุณาระบุที่อยู่ของแหล่งข้อมูล",
  "bad-source": "ประเภทแหล่งข้อมูลไม่ถูกต้อง",
  // ---- interests
  "projects-unavailable": unavailable,
  "user-id-required": "กรุณาระบุผู้ใช้",
  "user-id-mismatch": "ทำรายการแทนผู้ใช้อื่นไม่ได้",
  "no-interest-record": messages["No user interest record found for comments"],
  "comment-not-found": "ไม่พบความคิดเห็นนี้",
  "empty-update": "ไม่มีข้อมูลที่ต้องบันทึก",
  "invalid-bid-price": "ราคาเสนอต้องมากกว่า 0 และมีทศนิยมไม่เกิน 2 ตำแหน่ง",
  "invalid-reduction-percent": "เปอร์เซ็นต์ส่วนลดต้องอยู่ระหว่าง 0 ถึงน้อยกว่า 100 และมีทศนิยมไม่เกิน 2 ตำแหน่ง",
  "bid-above-reference": "ราคาเสนอสูงกว่าราคากลาง (หรืองบประมาณ) ของโครงการ",
  "bid-too-small": "เปอร์เซ็นต์ส่วนลดสูงเกินไป ราคาเสนอจะเป็น 0",
  "fill20-needs-follow": "ต้องติดตามประกาศก่อนจึงจะเลือกติดตามการกรอกราคาได้",
  "comment-empty": "กรุณาพิมพ์ความคิดเห็น",
  "comment-too-long": "ความคิดเห็นยาวได้ไม่เกิน 2,000 ตัวอักษร",
  "comment-control-characters": "ความคิดเห็นมีอักขระที่ใช้ไม่ได้",
  "invalid-flag": "ตัวกรองรายการไม่ถูกต้อง",
  "invalid-list-query": "การเรียงลำดับหรือตัวกรองวันปิดรับไม่ถูกต้อง",
  "calendar-feed-not-found": "ลิงก์ปฏิทินนี้ถูกยกเลิกหรือเปลี่ยนใหม่แล้ว",
  "invalid-calendar-token": "ลิงก์ปฏิทินไม่ถูกต้อง กรุณาคัดลอกลิงก์ใหม่จากหน้าโครงการของฉัน",
  // ---- notifications
  "notification-not-found": "ไม่พบการแจ้งเตือนนี้",
  "invalid-notification-id": "รหัสการแจ้งเตือนไม่ถูกต้อง",
  "invalid-category": "หมวดการแจ้งเตือนไม่ถูกต้อง",
  "invalid-count": "จำนวนการแจ้งเตือนทดสอบไม่ถูกต้อง",
  "invalid-older-than-days": "จำนวนวันไม่ถูกต้อง",
  "invalid-settings": "การตั้งค่าการแจ้งเตือนไม่ถูกต้อง",
  // ---- subscription and payments
  "checkout-tier": "แพ็กเกจที่เลือกไม่ถูกต้อง",
  "checkout-period": "รอบการชำระเงินไม่ถูกต้อง",
  "checkout-method": "วิธีชำระเงินไม่ถูกต้อง",
  "checkout-buyer": "เลือกได้อย่างใดอย่างหนึ่ง: ออกใบกำกับภาษีในนามผู้ซื้อ หรือใบเสร็จรับเงินทั่วไป",
  "checkout-not-found": "ไม่พบรายการชำระเงินนี้",
  "checkout-done": "รายการชำระเงินนี้เสร็จสิ้นแล้ว",
  "checkout-rate-limited": (ctx: ReasonContext) =>
    waitSeconds(
      ctx,
      (n) => `เริ่มการชำระเงินบ่อยเกินไป กรุณาลองใหม่ในอีก ${n} วินาที`,
      "เริ่มการชำระเงินบ่อยเกินไป กรุณาลองใหม่ในอีกสักครู่",
    ),
  "payments-unavailable": unavailable,
  "webhook-signature": tryLater,
  "webhook-event": tryLater,
  "idempotency-key": tryLater,
  "local-outcome": tryLater,
  "upgrade_required": "แพ็กเกจปัจจุบันของคุณไม่รวมฟีเจอร์นี้ อัปเกรดแพ็กเกจเพื่อใช้งาน",
  // Internal (projects, notification → subscription): never shown, but every reason has Thai.
  "too-many-users": "ขอข้อมูลสิทธิ์ของผู้ใช้มากเกินไปในครั้งเดียว",
  "quota-other-user": "ใช้สิทธิ์ของผู้ใช้อื่นไม่ได้",
  "quota-amount": tryLater,
  "quota-kind": tryLater,
  // ---- made by pkg/apperr itself
  internal: "เกิดข้อผิดพลาดในระบบ กรุณาลองใหม่อีกครั้ง",
  "dependency-unavailable": unavailable,
  "deadline-exceeded": unavailable,
  canceled: unavailable,
  // ---- the gateway's own
  "body-too-large": "ข้อมูลที่ส่งมีขนาดใหญ่เกินไป",
  "body-timeout": messages["No response from server. Please check your connection."],
  "body-unreadable": tryLater,
  "invalid-characters": "ข้อมูลมีอักขระที่ใช้ไม่ได้",
  "unsupported-media-type": tryLater,
  csrf: "คำขอถูกปฏิเสธเพื่อความปลอดภัย กรุณาโหลดหน้าใหม่แล้วลองอีกครั้ง",
  "not-found": "ไม่พบข้อมูลที่ต้องการ",
  "method-not-allowed": tryLater,
  "invalid-json": tryLater,
  "invalid-parameter": tryLater,
  "invalid-request": tryLater,
  unavailable,
  "webhook-signature-missing": tryLater,
  // ---- teams (docs/product.md#teams) ----
  "already-member": "อีเมลนี้เป็นสมาชิกของทีมอยู่แล้ว",
  "api-key-not-accepted": "คีย์ API ใช้กับคำขอนี้ไม่ได้",
  "api-key-not-found": "ไม่พบคีย์ API นี้",
  "api-key-rate-limited": (ctx: ReasonContext) =>
    waitSeconds(ctx, (n) => `ใช้คีย์ API นี้บ่อยเกินไป กรุณาลองใหม่ในอีก ${n} วินาที`, "ใช้คีย์ API นี้บ่อยเกินไป กรุณาลองใหม่อีกครั้งในอีกสักครู่"),
  "api-key-scope": "สิทธิ์ของคีย์ API นี้ไม่พอสำหรับคำขอนี้",
  "invalid-api-key": "คีย์ API ไม่ถูกต้องหรือถูกยกเลิกแล้ว",
  "invalid-due-date": "วันกำหนดส่งต้องเป็นวันที่ในรูปแบบ ปปปป-ดด-วว",
  "invalid-email": "อีเมลไม่ถูกต้อง",
  "invalid-invitation-code": "รหัสเข้าร่วมทีมไม่ถูกต้อง กรุณาตรวจสอบรหัสในอีเมลเชิญล่าสุด",
  "invalid-name": "ชื่อต้องมี 1 ถึง 100 ตัวอักษร",
  "invalid-note": "บันทึกยาวเกิน 2,000 ตัวอักษร",
  "invalid-owner": "ผู้รับผิดชอบต้องเป็นสมาชิกของทีม",
  "invalid-role": "บทบาทไม่ถูกต้อง",
  "invalid-scopes": "สิทธิ์ของคีย์ต้องเป็น อ่าน และ/หรือ เขียน",
  "invalid-stage": "ขั้นตอนไม่ถูกต้อง",
  "invalid-text": "ข้อความต้องมี 1 ถึง 2,000 ตัวอักษร",
  "invitation-not-found": "ไม่พบคำเชิญสำหรับอีเมลของคุณ หรือคำเชิญหมดอายุแล้ว",
  "last-owner": "เจ้าของทีมคนสุดท้ายออกจากทีมหรือเปลี่ยนบทบาทไม่ได้",
  "member-not-found": "ไม่พบสมาชิกนี้ในทีม",
  "pipeline-item-not-found": "โครงการนี้ไม่อยู่ในไปป์ไลน์ของทีม",
  "seat_limit": "ที่นั่งของทีมเต็มแล้วตามแพ็กเกจของเจ้าของทีม",
  "team-not-found": "ไม่พบทีมนี้",
  "team-read-only": "ทีมนี้อ่านได้อย่างเดียว เพราะแพ็กเกจของเจ้าของทีมไม่รวมการใช้งานทีม",
  "team-role-forbidden": "บทบาทของคุณในทีมนี้ทำรายการนี้ไม่ได้",
} satisfies Record<string, ReasonMessage>;

export type Reason = keyof typeof reasons;

export function isReason(s: string): s is Reason {
  return Object.prototype.hasOwnProperty.call(reasons, s);
}

/** The Thai message for a reason, or null for one this app does not know. */
export function reasonMessage(reason: string, ctx: ReasonContext = {}): string | null {
  if (!isReason(reason)) return null;
  const m: ReasonMessage = reasons[reason];
  return typeof m === "function" ? m(ctx) : m;
}
