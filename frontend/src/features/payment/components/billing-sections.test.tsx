import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser, type Call } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { th } from "@/i18n/th";

const b = th.billing;

function mine(extra: Record<string, unknown> = {}) {
  return {
    tier: "pro",
    tierLabel: "มืออาชีพ",
    price: 1490,
    isActive: true,
    daysRemaining: 20,
    subscription: { status: "active", startDate: "2026-11-10", endDate: "2026-12-09", method: "card", period: "monthly", autoRenew: true, ...extra },
  };
}

function backend(handlers: Record<string, (c: Call) => { status?: number; json: unknown }> = {}) {
  const be = createFakeBackend({
    "SubscriptionService/GetMySubscription": () => ({ json: mine() }),
    "SubscriptionService/ListPayments": () => ({
      json: { payments: [{ paymentId: "p1", tier: "pro", amount: 1490, amountSatang: "149000", status: "succeeded", period: "monthly", receiptNumber: "RC2569-000001", createdAt: "2026-11-10T03:00:00Z" }] },
    }),
    "SubscriptionService/GetBillingProfile": () => ({ json: { exists: false, profile: { kind: "person", headOffice: true } } }),
    ...handlers,
  });
  be.install();
  return be;
}

function signIn() {
  useAuthStore.setState({ user: testUser });
  setAccessToken("tok");
}

afterEach(() => {
  useAuthStore.setState({ user: null });
  vi.restoreAllMocks();
});

describe("payment settings", () => {
  it("checks the billing profile here first (Thai errors, no call), then saves it normalised", async () => {
    signIn();
    const be = backend({
      "SubscriptionService/UpdateBillingProfile": (c) => ({ json: { message: "บันทึกข้อมูลสำหรับออกใบเสร็จแล้ว", profile: c.body } }),
    });
    renderApp("/user-settings/payment-settings");
    await screen.findByTestId("billing-profile-form", {}, { timeout: 5000 });
    fireEvent.click(screen.getByTestId("billing-kind-company"));
    fireEvent.click(screen.getByTestId("billing-branch-office"));
    fireEvent.change(screen.getByTestId("billing-tax-id"), { target: { value: "0105551234568" } });
    fireEvent.change(screen.getByTestId("billing-branch"), { target: { value: "12" } });
    fireEvent.click(screen.getByTestId("billing-save"));
    expect(await screen.findByText(b.errTaxIdCheck)).toBeTruthy();
    expect(screen.getByText(b.errName)).toBeTruthy();
    expect(screen.getByText(b.errBranch)).toBeTruthy();
    expect(screen.getByText(b.errAddress)).toBeTruthy();
    expect(be.calls.some((c) => c.method === "UpdateBillingProfile")).toBe(false);

    fireEvent.change(screen.getByTestId("billing-name"), { target: { value: " บริษัท ตัวอย่าง จำกัด " } });
    fireEvent.change(screen.getByTestId("billing-tax-id"), { target: { value: "0-1055-51234-56-7" } });
    fireEvent.change(screen.getByTestId("billing-branch"), { target: { value: "00012" } });
    fireEvent.change(screen.getByTestId("billing-address"), { target: { value: "99 ถนนสีลม" } });
    fireEvent.click(screen.getByTestId("billing-save"));
    await screen.findByText("บันทึกข้อมูลสำหรับออกใบเสร็จแล้ว");
    expect(be.calls.find((c) => c.method === "UpdateBillingProfile")?.body).toEqual({
      kind: "company", name: "บริษัท ตัวอย่าง จำกัด", taxId: "0105551234567", branch: "00012", address: "99 ถนนสีลม",
    });
  });

  it("shows the Thai message of the server's reason when it refuses", async () => {
    signIn();
    backend({ "SubscriptionService/UpdateBillingProfile": () => connectError(400, "any server text", "billing-tax-id-check") });
    renderApp("/user-settings/payment-settings");
    await screen.findByTestId("billing-profile-form", {}, { timeout: 5000 });
    fireEvent.change(screen.getByTestId("billing-name"), { target: { value: "นาย ก" } });
    fireEvent.change(screen.getByTestId("billing-tax-id"), { target: { value: "1101700203671" } });
    fireEvent.change(screen.getByTestId("billing-address"), { target: { value: "เชียงใหม่" } });
    fireEvent.click(screen.getByTestId("billing-save"));
    expect(await screen.findByText("เลขประจำตัวผู้เสียภาษีไม่ถูกต้อง (เลขตรวจสอบหลักที่ 13 ไม่ตรง)")).toBeTruthy();
  });

  it("links each paid row to its receipt and cancels renewal after confirming, stating the rule", async () => {
    signIn();
    let cancelled = false;
    const be = backend({
      "SubscriptionService/GetMySubscription": () => ({ json: mine(cancelled ? { cancelAtPeriodEnd: true, autoRenew: false, canResume: true } : {}) }),
      "SubscriptionService/CancelSubscription": () => {
        cancelled = true;
        return { json: { message: "ยกเลิกการต่ออายุแล้ว ใช้งานได้ถึงวันที่ 9 ธันวาคม 2569" } };
      },
    });
    vi.spyOn(window, "confirm").mockReturnValue(true);
    renderApp("/user-settings/payment-settings");
    const link = await screen.findByTestId("receipt-link", {}, { timeout: 5000 });
    expect(link.getAttribute("href")).toBe("/receipt/RC2569-000001");
    expect(screen.getByTestId("renewal-state").textContent).toContain("ต่ออายุอัตโนมัติ");
    expect(screen.getByTestId("lifecycle-rule").textContent).toContain(b.ruleDowngrade);
    fireEvent.click(screen.getByTestId("renewal-cancel"));
    await waitFor(() => expect(be.calls.some((c) => c.method === "CancelSubscription")).toBe(true));
    await screen.findByTestId("renewal-resume");
    expect(screen.getByTestId("renewal-state").textContent).toContain("ยกเลิกการต่ออายุแล้ว");
  });
});

describe("renewal with a lower plan booked", () => {
  it("names the booked plan and offers no resume of the old card (it would charge for both)", async () => {
    signIn();
    backend({
      "SubscriptionService/GetMySubscription": () => ({
        json: mine({ cancelAtPeriodEnd: true, autoRenew: false, canResume: false, next: { tier: "basic", tierLabel: "เริ่มต้น", startDate: "2026-12-10", endDate: "2027-01-08" } }),
      }),
    });
    renderApp("/user-settings/payment-settings");
    const next = await screen.findByTestId("renewal-next", {}, { timeout: 5000 });
    expect(next.textContent).toContain("เริ่มต้น");
    expect(screen.getByTestId("renewal-state").textContent).toContain("ยกเลิกการต่ออายุแล้ว");
    expect(screen.queryByTestId("renewal-resume")).toBeNull();
    expect(screen.queryByTestId("renewal-cancel")).toBeNull();
  });
});

describe("renewal ended at the payment provider", () => {
  it("says the plan ends and offers no resume when the server says it cannot be resumed", async () => {
    signIn();
    backend({
      "SubscriptionService/GetMySubscription": () => ({ json: mine({ cancelAtPeriodEnd: true, autoRenew: false, canResume: false }) }),
    });
    renderApp("/user-settings/payment-settings");
    const state = await screen.findByTestId("renewal-state", {}, { timeout: 5000 });
    expect(state.textContent).toContain("ยกเลิกการต่ออายุแล้ว");
    expect(screen.queryByTestId("renewal-resume")).toBeNull();
    expect(screen.queryByTestId("renewal-cancel")).toBeNull();
  });
});

describe("receipt page", () => {
  it("shows the number, Buddhist-era date, VAT and the total in Thai words", async () => {
    signIn();
    backend({
      "SubscriptionService/GetReceipt": (c) =>
        c.body.number === "RC2569-000001"
          ? {
              json: {
                receipt: {
                  number: "RC2569-000001", issuedDate: "2026-11-25", description: "แพ็กเกจมืออาชีพ รายเดือน (30 วัน)", method: "card",
                  amountSatang: "149000", vatSatang: "9748", baseSatang: "139252", amount: 1490, vat: 97.48, base: 1392.52, vatRatePercent: 7,
                  amountWords: "หนึ่งพันสี่ร้อยเก้าสิบบาทถ้วน",
                  seller: { name: "บริษัท บิดเรดาร์ (ประเทศไทย) จำกัด", taxId: "0105559123454", branchLabel: "สำนักงานใหญ่", address: "กรุงเทพมหานคร" },
                  buyer: { name: "บริษัท ตัวอย่าง จำกัด", taxId: "0105551234567", branchLabel: "สาขาที่ 00012", address: "99 ถนนสีลม", email: "a@example.com" },
                },
              },
            }
          : connectError(404, "ไม่พบใบเสร็จรับเงินนี้"),
    });
    renderApp("/receipt/RC2569-000001");
    await screen.findByTestId("receipt", {}, { timeout: 5000 });
    expect(screen.getByTestId("receipt-number").textContent).toBe("RC2569-000001");
    expect(screen.getByTestId("receipt-date").textContent).toBe("25 พฤศจิกายน 2569");
    expect(screen.getByTestId("receipt-vat").textContent).toBe("97.48");
    expect(screen.getByTestId("receipt-base").textContent).toBe("1,392.52");
    expect(screen.getByTestId("receipt-total").textContent).toBe("1,490.00");
    expect(screen.getByTestId("receipt-words").textContent).toBe("(หนึ่งพันสี่ร้อยเก้าสิบบาทถ้วน)");
    expect(screen.getByTestId("receipt-buyer").textContent).toContain("สาขาที่ 00012");
  });

  it("says so for another user's or an unknown number", async () => {
    signIn();
    backend({ "SubscriptionService/GetReceipt": () => connectError(404, "ไม่พบใบเสร็จรับเงินนี้") });
    renderApp("/receipt/RC2569-000099");
    expect(await screen.findByTestId("receipt-missing", {}, { timeout: 5000 })).toBeTruthy();
  });
});

describe("payment page", () => {
  it("says what the chosen plan does to the plan in force", async () => {
    signIn();
    const tier = (t: string, label: string, rank: number, price: number) => ({ tier: t, label, rank, price, priceYearly: price * 10, currency: "THB" });
    backend({
      "SubscriptionService/ListTiers": () => ({
        json: { tierDetails: [tier("free", "ฟรี", 0, 0), tier("starter", "เริ่มต้น", 1, 490), tier("pro", "มืออาชีพ", 2, 1490), tier("enterprise", "องค์กร", 3, 4990)] },
      }),
    });
    renderApp("/payment?tier=starter");
    const effect = await screen.findByTestId("pay-effect", {}, { timeout: 5000 });
    expect(effect.textContent).toBe(th.billing.effectDowngrade("เริ่มต้น", "10 ธ.ค. 2569"));
    fireEvent.click(screen.getByTestId("pay-tier-enterprise"));
    expect(screen.getByTestId("pay-effect").textContent).toBe(th.billing.effectUpgrade("องค์กร"));
    fireEvent.click(screen.getByTestId("pay-tier-pro"));
    expect(screen.getByTestId("pay-effect").textContent).toBe(th.billing.effectExtend("9 ธ.ค. 2569"));
  });
});
