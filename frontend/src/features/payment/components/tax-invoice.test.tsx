import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser, type Call } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { th } from "@/i18n/th";

const b = th.billing;

const tier = (t: string, label: string, rank: number, price: number) => ({ tier: t, label, rank, price, priceYearly: price * 10, currency: "THB" });

function backend(handlers: Record<string, (c: Call) => { status?: number; json: unknown }> = {}) {
  const be = createFakeBackend({
    "SubscriptionService/ListTiers": () => ({
      json: { tierDetails: [tier("free", "ฟรี", 0, 0), tier("starter", "เริ่มต้น", 1, 490), tier("pro", "มืออาชีพ", 2, 1490)] },
    }),
    "SubscriptionService/GetMySubscription": () => ({ json: { tier: "free", tierLabel: "ฟรี", isActive: true, subscription: { status: "none" } } }),
    "SubscriptionService/GetBillingProfile": () => ({ json: { exists: false, profile: { kind: "person", headOffice: true } } }),
    "SubscriptionService/CreateCheckout": () => ({ json: { checkoutUrl: "/payment/local/local_cs_1", sessionId: "local_cs_1" } }),
    "SubscriptionService/GetLocalCheckout": () => ({ json: { checkout: { sessionId: "local_cs_1", tier: "pro", tierLabel: "มืออาชีพ", status: "open", amount: 1490 } } }),
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


// The pay button is enabled once the plans have loaded (a plan chosen); a
// click before that does nothing, so wait for it on a loaded machine.
async function clickPay() {
  const pay = await screen.findByTestId<HTMLButtonElement>("pay-submit", {}, { timeout: 5000 });
  await waitFor(() => expect(pay.disabled).toBe(false), { timeout: 5000 });
  fireEvent.click(pay);
}
describe("checkout asks who the tax invoice names", () => {
  it("a plain receipt by default without a profile (receipt_only)", async () => {
    signIn();
    const be = backend();
    renderApp("/payment?tier=pro");
    await screen.findByTestId("pay-invoice", {}, { timeout: 5000 });
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("pay-invoice-receipt").checked).toBe(true), { timeout: 5000 });
    expect(screen.queryByTestId("pay-buyer")).toBeNull();
    await clickPay();
    await waitFor(() => expect(be.calls.some((c) => c.method === "CreateCheckout")).toBe(true), { timeout: 5000 });
    const plain = be.calls.find((c) => c.method === "CreateCheckout")!.body;
    expect(plain.receiptOnly).toBe(true);
    expect(plain.buyer).toBeUndefined();
  });

  it("sends the buyer typed at checkout, after the same checks as the billing profile", async () => {
    signIn();
    const be = backend();
    renderApp("/payment?tier=pro");
    fireEvent.click(await screen.findByTestId("pay-invoice-tax", {}, { timeout: 5000 }));
    await screen.findByTestId("pay-buyer");
    fireEvent.click(screen.getByTestId("billing-kind-company"));
    fireEvent.change(screen.getByTestId("billing-name"), { target: { value: "บริษัท \u202eดำกัจ" } });
    fireEvent.change(screen.getByTestId("billing-tax-id"), { target: { value: "0105551234568" } });
    await clickPay();
    expect(await screen.findByText(b.errTaxIdCheck)).toBeTruthy();
    expect(screen.getByText(b.errChars)).toBeTruthy();
    expect(be.calls.some((c) => c.method === "CreateCheckout")).toBe(false);

    fireEvent.change(screen.getByTestId("billing-name"), { target: { value: " บริษัท รับเหมา จำกัด " } });
    fireEvent.change(screen.getByTestId("billing-tax-id"), { target: { value: "0-1055-51234-56-7" } });
    fireEvent.change(screen.getByTestId("billing-address"), { target: { value: "99/1 ถนนสีลม\nกรุงเทพมหานคร" } });
    await clickPay();
    await waitFor(() => expect(be.calls.some((c) => c.method === "CreateCheckout")).toBe(true), { timeout: 5000 });
    expect(be.calls.find((c) => c.method === "CreateCheckout")!.body.buyer).toEqual({
      kind: "company", name: "บริษัท รับเหมา จำกัด", taxId: "0105551234567", headOffice: true, address: "99/1 ถนนสีลม\nกรุงเทพมหานคร",
    });
  });

  it("offers the saved billing profile as the buyer", async () => {
    signIn();
    const be = backend({
      "SubscriptionService/GetBillingProfile": () => ({
        json: { exists: true, profile: { kind: "company", name: "บริษัท เดิม จำกัด", taxId: "0105551234567", headOffice: false, branch: "00012", address: "เชียงใหม่" } },
      }),
    });
    renderApp("/payment?tier=starter");
    await screen.findByTestId("pay-buyer", {}, { timeout: 5000 });
    expect(screen.getByTestId<HTMLInputElement>("billing-name").value).toBe("บริษัท เดิม จำกัด");
    await clickPay();
    await waitFor(() => expect(be.calls.some((c) => c.method === "CreateCheckout")).toBe(true), { timeout: 5000 });
    expect(be.calls.find((c) => c.method === "CreateCheckout")!.body.buyer).toMatchObject({ branch: "00012", taxId: "0105551234567" });
  });
});

const receipt = (extra: Record<string, unknown>) => ({
  number: "RC2569-000001", issuedDate: "2026-11-25", description: "แพ็กเกจมืออาชีพ รายเดือน (30 วัน)", method: "promptpay",
  amountSatang: "149000", vatSatang: "9748", baseSatang: "139252", amount: 1490, vat: 97.48, base: 1392.52, vatRatePercent: 7,
  amountWords: "หนึ่งพันสี่ร้อยเก้าสิบบาทถ้วน",
  seller: { name: "บริษัท บิดเรดาร์ (ประเทศไทย) จำกัด", taxId: "0105559123454", branchLabel: "สำนักงานใหญ่", address: "กรุงเทพมหานคร" },
  buyer: { email: "a@example.com" },
  ...extra,
});

describe("replacement tax invoice", () => {
  it("a receipt without a buyer offers it once, checked here, confirmed, then shows the replacement", async () => {
    signIn();
    const be = backend({
      "SubscriptionService/GetReceipt": (c) =>
        c.body.number === "RC2569-000001"
          ? { json: { receipt: receipt({ canReissue: true }) } }
          : {
              json: {
                receipt: receipt({
                  number: "RC2569-000002", issuedDate: "2026-12-01", replacesNumber: "RC2569-000001", replacesIssuedDate: "2026-11-25",
                  buyerHasProfile: true, buyer: { name: "บริษัท ทดสอบ จำกัด", taxId: "0105551234567", branchLabel: "สำนักงานใหญ่", address: "99 ถนนสีลม" },
                }),
              },
            },
      "SubscriptionService/ReissueReceipt": (c) => ({
        json: { message: "ออกใบกำกับภาษีฉบับแทนเลขที่ RC2569-000002 แล้ว", receipt: { ...receipt({}), number: "RC2569-000002", buyer: c.body.buyer } },
      }),
    });
    const confirm = vi.spyOn(window, "confirm").mockReturnValue(true);
    renderApp("/receipt/RC2569-000001");
    fireEvent.click(await screen.findByTestId("receipt-reissue-start", {}, { timeout: 5000 }));
    fireEvent.click(screen.getByTestId("billing-kind-company"));
    fireEvent.change(screen.getByTestId("billing-tax-id"), { target: { value: "0105551234568" } });
    fireEvent.click(screen.getByTestId("receipt-reissue-submit"));
    expect(await screen.findByText(b.errTaxIdCheck)).toBeTruthy();
    expect(confirm).not.toHaveBeenCalled();
    fireEvent.change(screen.getByTestId("billing-name"), { target: { value: "บริษัท ทดสอบ จำกัด" } });
    fireEvent.change(screen.getByTestId("billing-tax-id"), { target: { value: "0105551234567" } });
    fireEvent.change(screen.getByTestId("billing-address"), { target: { value: "99 ถนนสีลม" } });
    fireEvent.click(screen.getByTestId("receipt-reissue-submit"));
    await waitFor(() => expect(be.calls.some((c) => c.method === "ReissueReceipt")).toBe(true), { timeout: 5000 });
    expect(confirm).toHaveBeenCalledWith(b.reissueConfirm);
    expect(be.calls.find((c) => c.method === "ReissueReceipt")!.body).toMatchObject({ number: "RC2569-000001", buyer: { name: "บริษัท ทดสอบ จำกัด" } });
    await waitFor(() => expect(screen.getByTestId("receipt-number").textContent).toBe("RC2569-000002"));
    expect(screen.getByTestId("receipt-title").textContent).toBe(b.replacementTitle);
    expect(screen.getByTestId("receipt-replaces").textContent).toBe(b.replaces("RC2569-000001", "25 พฤศจิกายน 2569"));
    expect(screen.queryByTestId("receipt-reissue")).toBeNull();
  });

  it("an original already replaced links to its replacement and offers no second one", async () => {
    signIn();
    backend({ "SubscriptionService/GetReceipt": () => ({ json: { receipt: receipt({ replacedByNumber: "RC2569-000002" }) } }) });
    renderApp("/receipt/RC2569-000001");
    const note = await screen.findByTestId("receipt-replaced-by", {}, { timeout: 5000 });
    expect(note.textContent).toContain("RC2569-000002");
    expect(screen.queryByTestId("receipt-reissue")).toBeNull();
  });

  it("shows the server's Thai reason for a second reissue", async () => {
    signIn();
    backend({
      "SubscriptionService/GetReceipt": () => ({ json: { receipt: receipt({ canReissue: true }) } }),
      "SubscriptionService/GetBillingProfile": () => ({
        json: { exists: true, profile: { kind: "company", name: "บริษัท เดิม จำกัด", taxId: "0105551234567", headOffice: true, branch: "", address: "เชียงใหม่" } },
      }),
      "SubscriptionService/ReissueReceipt": () => connectError(409, "any", "receipt-reissued"),
    });
    vi.spyOn(window, "confirm").mockReturnValue(true);
    renderApp("/receipt/RC2569-000001");
    fireEvent.click(await screen.findByTestId("receipt-reissue-start", {}, { timeout: 5000 }));
    await waitFor(() => expect(screen.getByTestId<HTMLInputElement>("billing-name").value).toBe("บริษัท เดิม จำกัด"));
    fireEvent.click(screen.getByTestId("receipt-reissue-submit"));
    expect(await screen.findByText("ใบเสร็จนี้ออกใบกำกับภาษีฉบับแทนไปแล้ว ออกได้ครั้งเดียว")).toBeTruthy();
  });
});

describe("account deletion with a plan in force", () => {
  const withPlan = (sub: Record<string, unknown>) =>
    backend({
      "SubscriptionService/GetMySubscription": () => ({
        json: { tier: "pro", tierLabel: "มืออาชีพ", isActive: true, subscription: { status: "active", startDate: "2026-11-10", endDate: "2026-12-09", ...sub } },
      }),
      "AuthService/GetSecuritySettings": () => ({ json: { hasPassword: true } }),
    });

  it("warns that a card plan stops renewing and is cancelled at the payment provider", async () => {
    signIn();
    withPlan({ method: "card", next: { tier: "starter", tierLabel: "เริ่มต้น", startDate: "2026-12-10", endDate: "2027-01-08" } });
    renderApp("/user-settings/user-info");
    const w = await screen.findByTestId("delete-plan-warning", {}, { timeout: 5000 });
    expect(w.textContent).toContain(b.deletePlanCard("มืออาชีพ", "9 ธันวาคม 2569"));
    expect(w.textContent).toContain(b.deletePlanNext("เริ่มต้น"));
  });

  it("says a prepaid pass ends with the account, and nothing without a plan", async () => {
    signIn();
    withPlan({ method: "promptpay" });
    const { unmount } = renderApp("/user-settings/user-info");
    const w = await screen.findByTestId("delete-plan-warning", {}, { timeout: 5000 });
    expect(w.textContent).toContain(b.deletePlanPass("มืออาชีพ", "9 ธันวาคม 2569"));
    unmount();
    backend({ "AuthService/GetSecuritySettings": () => ({ json: { hasPassword: true } }) });
    renderApp("/user-settings/user-info");
    await screen.findByTestId("delete-account", {}, { timeout: 5000 });
    await waitFor(() => expect(screen.queryByTestId("delete-plan-warning")).toBeNull());
  });
});
