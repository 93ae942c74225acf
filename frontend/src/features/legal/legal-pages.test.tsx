import { describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { th } from "@/i18n/th";

describe("footer pages (docs/product.md#header-and-footer)", () => {
  const cases = [
    { label: th.footer.about, path: "/about", testId: "about-page", title: th.legal.about.title },
    { label: th.footer.privacy, path: "/privacy", testId: "privacy-page", title: th.legal.privacy.title },
    { label: th.footer.licensing, path: "/terms", testId: "terms-page", title: th.legal.terms.title },
  ];
  for (const c of cases) {
    it(`the footer's "${c.label}" opens ${c.path}, a real page of its own`, async () => {
      const { router } = renderApp("/search");
      const footer = await screen.findByTestId("site-footer", {}, { timeout: 5000 });
      await act(async () => {
        fireEvent.click(within(footer).getByRole("link", { name: c.label }));
      });
      await waitFor(() => expect(router.state.location.pathname).toBe(c.path));
      expect(router.state.location.hash).toBe("");
      const page = await screen.findByTestId(c.testId, {}, { timeout: 5000 });
      expect(within(page).getByRole("heading", { level: 1, name: c.title })).toBeTruthy();
      expect(document.title).toBe(`${c.title} - BidRadar Thailand`);
    });
  }

  it("the privacy policy says what, why, how long, the rights (access, deletion, portability) and whom to contact", async () => {
    renderApp("/privacy");
    const page = await screen.findByTestId("privacy-page", {}, { timeout: 5000 });
    const text = page.textContent ?? "";
    for (const must of ["ข้อมูลที่เราเก็บ", "ใช้ข้อมูลเพื่ออะไร", "เก็บข้อมูลนานเท่าใด", "ขอเข้าถึง", "ลบ", "โอนย้ายข้อมูล", "privacy@bidradar.co.th", "พ.ศ. 2562"]) {
      expect(text).toContain(must);
    }
  });
});

describe("sign-up consent", () => {
  it("links the terms and the privacy policy it asks the user to accept", async () => {
    renderApp("/signup");
    const consent = await screen.findByTestId("signup-consent", {}, { timeout: 5000 });
    expect(within(consent).getByRole("link", { name: th.legal.signupConsent.terms }).getAttribute("href")).toBe("/terms");
    expect(within(consent).getByRole("link", { name: th.legal.signupConsent.privacy }).getAttribute("href")).toBe("/privacy");
  });
});
