import { describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser, type Call } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { th } from "@/i18n/th";
import { savedEntry } from "./price-guide";

const t = th.market;
const PROJECT = "69099722203";
const REF = 1_000_000;

const project = {
  summary: { projectId: PROJECT, projectName: "จ้างก่อสร้างถนน", referencePrice: REF, deptName: "อบต.หนองบัว", status: "announced" },
  announcements: [],
  contracts: [],
};

const stats = { p10: 2, p25: 5, p50: 8.5, p75: 12, p90: 18.25, mean: 9.1 };
const histogram = [
  { fromPct: -5, toPct: 0, count: "1" },
  { fromPct: 0, toPct: 5, count: "6" },
  { fromPct: 5, toPct: 10, count: "12" },
  { fromPct: 10, toPct: 15, count: "5" },
  { fromPct: 15, toPct: 20, count: "3" },
  { fromPct: 20, toPct: 25, count: "0" },
];
const winners = [
  { taxId: "0105559012342", name: "บริษัท ทองคำบัว จำกัด", wins: "7", totalBaht: 12_500_000, p50DiscountPct: 9.25 },
  { name: "หจก. ไม่มีเลข", wins: "3", totalBaht: 900_000 },
];

/** The server's percent_rank of a discount among the group's (fixed discounts of 27 projects). */
const GROUP = [-1, 0.5, 1, 2, 2.5, 3, 4, 5, 5.5, 6, 7, 7.5, 8, 8.5, 8.5, 9, 9.5, 10, 11, 12, 12.5, 13, 14, 16, 17, 18.25, 19];
function rankOf(d: number) {
  return Math.round((GROUP.filter((x) => x < d).length / GROUP.length) * 10000) / 100;
}

function guide(call: Call) {
  const bid = call.body.bidPrice as number | undefined;
  const discount = bid === undefined ? undefined : Math.round(((REF - bid) / REF) * 10000) / 100;
  return {
    json: {
      n: "27",
      nWithoutReference: "4",
      discountPct: stats,
      histogram,
      byBudgetYear: [{ budgetYear: 2568, n: "12", p50: 8 }, { budgetYear: 2569, n: "15", p50: 9 }],
      topWinners: winners,
      basis: "agency_method",
      group: { deptCode: "D1", deptName: "อบต.หนองบัว", methodCode: "16", methodName: "e-bidding" },
      projectId: PROJECT,
      referencePrice: REF,
      referenceKind: "reference_price",
      minGroupSize: "20",
      ...(bid !== undefined ? { bid: { bidPrice: bid, discountPct: discount, percentileRank: rankOf(discount!) } } : {}),
    },
  };
}

function signIn(features: string[], extra: Record<string, (c: Call) => unknown> = {}) {
  useAuthStore.setState({ user: testUser });
  setAccessToken("tok");
  const be = createFakeBackend({
    "SubscriptionService/GetMySubscription": () => ({ json: { tier: "pro", features, combinationLimits: { watchlistSize: 20 } } }),
    "ProjectsService/GetProject": () => ({ json: { project } }),
    "ProjectsService/GetDropdownData": () => ({ json: {} }),
    "InterestsService/GetInterest": () => ({ json: {} }),
    "InterestsService/ListComments": () => ({ json: {} }),
    "MarketService/GetPriceGuide": guide,
    ...(extra as Record<string, never>),
  });
  be.install();
  return be;
}

const guides = (be: { calls: Call[] }) => be.calls.filter((c) => c.method === "GetPriceGuide");

describe("the price guide on a project", () => {
  it("names the group in Thai, shows n, the spread and the simulator; a typed bid is placed by the server, debounced", async () => {
    const be = signIn(["market_benchmarks"]);
    renderApp(`/project-details/${PROJECT}`);
    const panel = await screen.findByTestId("price-guide", {}, { timeout: 15000 });
    await within(panel).findByTestId("mk-basis", {}, { timeout: 15000 });
    expect(within(panel).getByTestId("mk-basis").textContent).toBe(`${t.basis}: หน่วยงาน อบต.หนองบัว · วิธี e-bidding`);
    expect(within(panel).getByTestId("mk-n-line").textContent).toBe(t.nLine("27", "4"));
    expect(within(panel).getByTestId("mk-spread-p50").textContent).toBe("8.50%");
    expect(guides(be)[0].body).toEqual({ projectId: PROJECT });

    // Typing 9,1,0,0,0,0 quickly: one placement, for the whole bid.
    const input = within(panel).getByTestId("mk-sim-bid");
    for (const v of ["9", "91", "910", "9100", "91000", "910000"]) fireEvent.change(input, { target: { value: v } });
    expect(within(panel).getByTestId("mk-sim-pct")).toHaveProperty("value", "9");
    expect(within(panel).getByTestId("mk-sim-discount").textContent).toBe("9.00%");
    await waitFor(() => expect(within(panel).getByTestId("mk-sim-rank").textContent).toBe(t.simRank(`${rankOf(9).toFixed(2)}%`)), { timeout: 4000 });
    const placed = guides(be).filter((c) => c.body.bidPrice !== undefined);
    expect(placed.map((c) => c.body.bidPrice)).toEqual([910000]);
    expect(within(panel).getByTestId("mk-sim-band").textContent).toBe(t.bands["p50-p75"]);
  });

  it("a discount typed gives the bid (negative: above the reference), and a percentile's button fills it", async () => {
    const be = signIn(["market_benchmarks"]);
    renderApp(`/project-details/${PROJECT}`);
    const panel = await screen.findByTestId("price-guide", {}, { timeout: 15000 });
    const pct = await within(panel).findByTestId("mk-sim-pct", {}, { timeout: 15000 });
    fireEvent.change(pct, { target: { value: "-2,5" } });
    expect(within(panel).getByTestId("mk-sim-bid")).toHaveProperty("value", "1,025,000");
    expect(within(panel).getByTestId("mk-sim-band").textContent).toBe(t.bands["below-p10"]);
    await waitFor(() => expect(guides(be).some((c) => c.body.bidPrice === 1_025_000)).toBe(true), { timeout: 4000 });
    await within(panel).findByTestId("mk-sim-rank", {}, { timeout: 4000 });
    expect(within(panel).getByTestId("mk-sim-rank").textContent).toBe(t.simRank("0.00%"));

    fireEvent.change(pct, { target: { value: "abc" } });
    expect(within(panel).getByText(t.simDiscountInvalid)).toBeTruthy();

    await act(async () => {
      fireEvent.click(within(panel).getByTestId("mk-at-p75"));
    });
    expect(within(panel).getByTestId("mk-sim-bid")).toHaveProperty("value", "880,000");
    expect(within(panel).getByTestId("mk-sim-pct")).toHaveProperty("value", "12");
  });

  it("starts from the user's own saved bid on the project: its price placed by the server; typing takes over", async () => {
    const be = signIn(["market_benchmarks"], {
      "ProjectsService/GetProject": () => ({ json: { project: { ...project, summary: { ...project.summary, bidPrice: 940_000 } } } }),
    });
    renderApp(`/project-details/${PROJECT}`);
    const panel = await screen.findByTestId("price-guide", {}, { timeout: 15000 });
    const bidInput = await within(panel).findByTestId("mk-sim-bid", {}, { timeout: 15000 });
    expect(bidInput).toHaveProperty("value", "940,000");
    expect(within(panel).getByTestId("mk-sim-pct")).toHaveProperty("value", "6");
    expect(within(panel).getByTestId("mk-sim-discount").textContent).toBe("6.00%");
    await waitFor(() => expect(within(panel).getByTestId("mk-sim-rank").textContent).toBe(t.simRank(`${rankOf(6).toFixed(2)}%`)), { timeout: 4000 });
    expect(guides(be).some((c) => c.body.bidPrice === 940_000)).toBe(true);
    fireEvent.change(within(panel).getByTestId("mk-sim-pct"), { target: { value: "10" } });
    expect(within(panel).getByTestId("mk-sim-bid")).toHaveProperty("value", "900,000");
  });

  it("a saved discount only (no price) starts the simulator from that discount", async () => {
    signIn(["market_benchmarks"], {
      "ProjectsService/GetProject": () => ({ json: { project: { ...project, summary: { ...project.summary, reductionPercent: 12.5 } } } }),
    });
    renderApp(`/project-details/${PROJECT}`);
    const panel = await screen.findByTestId("price-guide", {}, { timeout: 15000 });
    const pct = await within(panel).findByTestId("mk-sim-pct", {}, { timeout: 15000 });
    expect(pct).toHaveProperty("value", "12.5");
    expect(within(panel).getByTestId("mk-sim-bid")).toHaveProperty("value", "875,000");
  });

  it("savedEntry: the bids store before the project's row, a price before a discount, empty without a bid", () => {
    expect(savedEntry(undefined, { bidPrice: 5, reductionPercent: 1 })).toEqual({ from: "bid", bid: 5 });
    expect(savedEntry({ bidPrice: null, reductionPercent: 3 }, { bidPrice: 5 })).toEqual({ from: "pct", text: "3" });
    expect(savedEntry({ bidPrice: 0, reductionPercent: null }, undefined)).toEqual({ from: "bid", bid: null });
    expect(savedEntry(null, {})).toEqual({ from: "bid", bid: null });
  });

  it("free: the way to the plans, and the guide is never asked for", async () => {
    const be = signIn([]);
    renderApp(`/project-details/${PROJECT}`);
    const panel = await screen.findByTestId("price-guide", {}, { timeout: 15000 });
    await within(panel).findByTestId("mk-upgrade-benchmarks", {}, { timeout: 15000 });
    expect(within(panel).getByTestId("mk-upgrade-link").getAttribute("href")).toBe("/user-settings/pricing");
    expect(guides(be)).toEqual([]);
  });

  it("the server's 403 upgrade_required shows the same prompt (the plan still loading or stale)", async () => {
    signIn(["market_benchmarks"], { "MarketService/GetPriceGuide": () => connectError(403, "upgrade required", "upgrade_required") });
    renderApp(`/project-details/${PROJECT}`);
    const panel = await screen.findByTestId("price-guide", {}, { timeout: 15000 });
    await within(panel).findByTestId("mk-upgrade-benchmarks", {}, { timeout: 15000 });
  });

  it("no group of 20: says so in Thai, the simulator still converts", async () => {
    signIn(["market_benchmarks"], {
      "MarketService/GetPriceGuide": () => ({ json: { n: "0", nWithoutReference: "0", basis: "none", minGroupSize: "20", referencePrice: REF, referenceKind: "budget" } }),
    });
    renderApp(`/project-details/${PROJECT}`);
    const panel = await screen.findByTestId("price-guide", {}, { timeout: 15000 });
    const basis = await within(panel).findByTestId("mk-basis", {}, { timeout: 15000 });
    expect(basis.textContent).toContain(t.basisNone("20"));
    expect(within(panel).getByTestId("mk-reference").textContent).toContain(t.basedOn("budget"));
    expect(within(panel).queryByTestId("mk-spread")).toBeNull();
  });
});

const benchmark = { n: "27", nWithoutReference: "4", discountPct: stats, histogram, byBudgetYear: [{ budgetYear: 2569, n: "27", p50: 8.5 }], topWinners: winners };

describe("/market", () => {
  it("the URL's filters go to GetBenchmarks; tiles, spread, chart tables and the winners with links", async () => {
    const be = signIn(["market_benchmarks"], { "MarketService/GetBenchmarks": () => ({ json: benchmark }) });
    renderApp("/market?keyWord_Incl_Or=%E0%B8%96%E0%B8%99%E0%B8%99&method_User_required=16&budgetYear_User=2569");
    const page = await screen.findByTestId("market-page", {}, { timeout: 15000 });
    await within(page).findByTestId("mk-winners", {}, { timeout: 15000 });
    expect(be.calls.find((c) => c.method === "GetBenchmarks")!.body).toEqual({ keyWordInclOr: ["ถนน"], methodUserRequired: ["16"], budgetYearUser: ["2569"] });
    expect(within(page).getByTestId("mk-n").textContent).toBe("27");
    expect(within(page).getByTestId("mk-n-without").textContent).toBe("4");
    expect(within(page).getByTestId("mk-p50").textContent).toBe("8.50%");
    expect(within(page).getByTestId("mk-mean").textContent).toBe("9.10%");
    for (const [k, v] of [["p10", "2.00%"], ["p25", "5.00%"], ["p50", "8.50%"], ["p75", "12.00%"], ["p90", "18.25%"]]) expect(within(page).getByTestId(`mk-spread-${k}`).textContent).toBe(v);
    // The histogram's table: the empty bin at the end is not drawn, the negative one is.
    const rows = within(within(page).getByTestId("mk-histogram")).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual(["−5.00% ถึง 0.00%1", "0.00% ถึง 5.00%6", "5.00% ถึง 10.00%12", "10.00% ถึง 15.00%5", "15.00% ถึง 20.00%3"]);
    const w = within(page).getAllByTestId("mk-winner");
    expect(within(w[0]).getByTestId("mk-winner-link").getAttribute("href")).toBe("/market/suppliers/0105559012342");
    expect(within(w[1]).queryByTestId("mk-winner-link")).toBeNull();
    expect(w[1].textContent).toContain(t.noTaxId);
    // The search's filters, less those the benchmarks do not take.
    expect(within(page).queryByTestId("project-ids")).toBeNull();
    expect(within(page).queryByTestId("save-criteria")).toBeNull();
  });

  it("free: the upgrade prompt and no call", async () => {
    const be = signIn([]);
    renderApp("/market");
    await screen.findByTestId("mk-upgrade-benchmarks", {}, { timeout: 15000 });
    expect(be.calls.some((c) => c.method === "GetBenchmarks")).toBe(false);
  });
});

describe("supplier pages and the watchlist (profiles)", () => {
  const supplier = {
    taxId: "0105559012342",
    names: ["บริษัท ทองคำบัว จำกัด", "ทองคำบัว"],
    wins: "7",
    totalBaht: 12_500_000,
    p50DiscountPct: 9.25,
    byBudgetYear: [{ budgetYear: 2569, wins: "7", totalBaht: 12_500_000, p50DiscountPct: 9.25 }],
    agencies: [{ deptCode: "D1", name: "อบต.หนองบัว", wins: "7", totalBaht: 12_500_000 }],
    recent: [{ projectId: PROJECT, projectName: "จ้างก่อสร้างถนน", agreedPrice: 910_000, referencePrice: REF, discountPct: 9, announceDate: "2026-09-01" }],
    watched: false,
  };

  it("starter: supplier pages are the upgrade prompt", async () => {
    const be = signIn(["market_benchmarks"]);
    renderApp("/market/suppliers/0105559012342");
    await screen.findByTestId("mk-upgrade-profiles", {}, { timeout: 15000 });
    expect(be.calls.some((c) => c.method === "GetSupplier")).toBe(false);
  });

  it("a failed check digit never reaches the server", async () => {
    const be = signIn(["market_benchmarks", "market_profiles"]);
    renderApp("/market/suppliers/0105559012345");
    expect((await screen.findByTestId("mk-not-found", {}, { timeout: 15000 })).textContent).toContain(t.badTaxId);
    expect(be.calls.some((c) => c.method === "GetSupplier")).toBe(false);
  });

  it("pro: the profile, B.E. dates, and the watch button", async () => {
    let watched = false;
    const be = signIn(["market_benchmarks", "market_profiles"], {
      "MarketService/GetSupplier": () => ({ json: { ...supplier, watched } }),
      "MarketService/AddWatch": () => {
        watched = true;
        return { json: { taxId: supplier.taxId } };
      },
    });
    renderApp("/market/suppliers/0105559012342");
    const page = await screen.findByTestId("supplier-page", {}, { timeout: 15000 });
    expect(within(page).getByTestId("mk-supplier-name").textContent).toBe("บริษัท ทองคำบัว จำกัด");
    expect(within(page).getByTestId("mk-supplier-taxid").textContent).toContain("0-1055-59012-34-2");
    expect(within(page).getByTestId("mk-supplier-recent").textContent).toContain("1 ก.ย. 2569");
    expect(within(page).getByTestId("mk-supplier-p50").textContent).toBe("9.25%");
    await act(async () => {
      fireEvent.click(within(page).getByTestId("mk-watch"));
    });
    await screen.findByTestId("mk-unwatch", {}, { timeout: 5000 });
    expect(be.calls.find((c) => c.method === "AddWatch")!.body).toEqual({ taxId: "0105559012342" });
  });

  it("the watchlist: validates the tax id in Thai, adds, shows the server's refusal, removes", async () => {
    let items: Array<{ taxId: string; name: string; wins: string; totalBaht: number }> = [];
    const be = signIn(["market_benchmarks", "market_profiles"], {
      "MarketService/ListWatches": () => ({ json: { items, limit: "20" } }),
      "MarketService/AddWatch": (c) => {
        if (c.body.taxId === "0994000165510") return connectError(409, "รายการเฝ้าดูเต็มแล้ว (20 ราย)");
        items = [...items, { taxId: c.body.taxId as string, name: "บริษัท ทองคำบัว จำกัด", wins: "7", totalBaht: 12_500_000 }];
        return { json: { taxId: c.body.taxId } };
      },
      "MarketService/RemoveWatch": (c) => {
        items = items.filter((w) => w.taxId !== c.body.taxId);
        return { json: {} };
      },
    });
    renderApp("/user-settings/watchlist");
    await screen.findByTestId("watch-empty", {}, { timeout: 15000 });
    const input = screen.getByTestId("watch-taxid");
    const add = async (v: string) => {
      fireEvent.change(input, { target: { value: v } });
      await act(async () => {
        fireEvent.click(screen.getByTestId("watch-add"));
      });
    };
    await add("1.05559E+11");
    expect(screen.getByRole("alert").textContent).toBe(t.taxIdShape);
    await add("0105559012345");
    expect(screen.getByRole("alert").textContent).toBe(t.taxIdCheck);
    expect(be.calls.some((c) => c.method === "AddWatch")).toBe(false);

    await add("0-1055-59012-34-2");
    await screen.findByTestId("watch-row", {}, { timeout: 5000 });
    expect(screen.getByTestId("watch-usage").textContent).toBe(t.watchlistUsage("1", "20"));
    await add("0105559012342");
    expect(screen.getByRole("alert").textContent).toBe(t.alreadyWatched);
    await add("0994000165510");
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("รายการเฝ้าดูเต็มแล้ว (20 ราย)"));

    await act(async () => {
      fireEvent.click(screen.getByTestId("watch-remove"));
    });
    await screen.findByTestId("watch-empty", {}, { timeout: 5000 });
    expect(be.calls.find((c) => c.method === "RemoveWatch")!.body).toEqual({ taxId: "0105559012342" });
  });
});
