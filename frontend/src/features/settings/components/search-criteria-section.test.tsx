import { afterEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { createFakeBackend, testUser, type Call } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { th } from "@/i18n/th";

const s = th.savedSearch;
const t = th.settingsPages;

const night = {
  criteriaId: "c-night",
  name: "ประตูน้ำ กทม.",
  searchType: "overnight",
  criteria: {
    keyWord_Incl_Or: ["ประตูระบายน้ำ", "ฝาย"],
    keyWord_Excl_Nor: ["ซ่อม"],
    province_User: ["10"],
    annouSDate_User: "2026-10-01",
    annouEDate_User: "2026-11-21",
    projectMoneyS_User: 500000,
  },
  createdAt: "2026-11-20T03:00:00Z",
};
const day = {
  criteriaId: "c-day",
  name: "คอมพิวเตอร์",
  searchType: "normal",
  criteria: { keyWord_Incl_And: ["คอมพิวเตอร์"], annouType_User_required: ["W0"], projectMoneyE_User: 100000 },
  createdAt: "2026-11-19T03:00:00Z",
};

function backend(limit: number, saved: unknown[]) {
  let list = saved;
  const be = createFakeBackend({
    "ProjectsService/GetDropdownData": () => ({
      json: { provinces: [{ value: "10", label: "กรุงเทพมหานคร" }], announceTypes: [{ value: "W0", label: "ประกาศรายชื่อผู้ชนะการเสนอราคา" }] },
    }),
    "ProjectsService/RecallSaveCriteria": () => ({ json: { criteria: list } }),
    "ProjectsService/DeleteSearchCriteria": (c: Call) => {
      list = (list as { criteriaId: string }[]).filter((x) => x.criteriaId !== c.body.criteriaId);
      return { json: { message: "ลบแล้ว" } };
    },
    "SubscriptionService/GetMySubscription": () => ({ json: { tier: "free", tierLabel: "ฟรี", combinationLimits: { searchCombination: 3, overnightSearchSave: limit } } }),
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

describe("/user-settings/search-criteria", () => {
  it("each saved search: its criteria in Thai, its type, and แก้ไข to the search page; overnight counted against the plan", async () => {
    signIn();
    backend(1, [night, day]);
    renderApp("/user-settings/search-criteria");
    const rows = await screen.findAllByTestId("criteria-row", {}, { timeout: 5000 });
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByTestId("criteria-type").textContent).toBe(t.overnight);
    expect(within(rows[1]).getByTestId("criteria-type").textContent).toBe(t.normal);

    // Labels from the dropdown lists (once loaded), B.E. dates, baht.
    await waitFor(() => expect(within(rows[0]).getByTestId("criteria-summary").textContent).toContain("กรุงเทพมหานคร"));
    const first = within(rows[0]).getByTestId("criteria-summary").textContent;
    for (const part of [s.keywordsAny, "ประตูระบายน้ำ, ฝาย", s.keywordsNot, "ซ่อม", th.search.groups.provinces, s.announced, "1 ต.ค. 2569 – 21 พ.ย. 2569", s.budget, s.atLeast("500,000.00 บาท")]) {
      expect(first).toContain(part);
    }
    const second = within(rows[1]).getByTestId("criteria-summary").textContent;
    for (const part of [s.keywordsAll, "คอมพิวเตอร์", "ประกาศรายชื่อผู้ชนะการเสนอราคา", s.atMost("100,000.00 บาท")]) {
      expect(second).toContain(part);
    }
    expect(second).not.toContain("W0");

    expect(within(rows[0]).getByTestId("criteria-edit").getAttribute("href")).toBe("/search?criteria=c-night");
    expect((await screen.findByTestId("overnight-usage")).textContent).toBe("ค้นหาข้ามคืน 1/1 ชุด");
    const full = screen.getByTestId("overnight-full");
    expect(full.textContent).toContain(s.overnightFull("1"));
    expect(within(full).getByRole("link").getAttribute("href")).toBe("/user-settings/pricing");
  });

  it("deleting the overnight search frees the plan: 0/1 and the note goes", async () => {
    signIn();
    vi.spyOn(window, "confirm").mockReturnValue(true);
    const be = backend(1, [night, day]);
    renderApp("/user-settings/search-criteria");
    await waitFor(() => expect(screen.queryByTestId("overnight-usage")?.textContent).toBe("ค้นหาข้ามคืน 1/1 ชุด"));
    const rows = screen.getAllByTestId("criteria-row");
    await act(async () => {
      fireEvent.click(within(rows[0]).getByTestId("criteria-delete"));
    });
    await waitFor(() => expect(screen.getByTestId("overnight-usage").textContent).toBe("ค้นหาข้ามคืน 0/1 ชุด"));
    expect(screen.queryByTestId("overnight-full")).toBeNull();
    expect(screen.getAllByTestId("criteria-row")).toHaveLength(1);
    expect(be.calls.filter((c) => c.method === "GetMySubscription").length).toBeGreaterThan(1);
  });

  it("an unlimited plan (-1) says ไม่จำกัด", async () => {
    signIn();
    backend(-1, [night]);
    renderApp("/user-settings/search-criteria");
    await waitFor(() => expect(screen.queryByTestId("overnight-usage")?.textContent).toBe(s.overnightUsageUnlimited("1")));
    expect(screen.getByTestId("overnight-usage").textContent).toContain("ไม่จำกัด");
    expect(screen.queryByTestId("overnight-full")).toBeNull();
  });
});
