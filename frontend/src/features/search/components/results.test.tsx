import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { create } from "@bufbuild/protobuf";
import { ProjectSummarySchema, type ProjectSummary } from "@/gen/projects/v1/projects_pb";
import { renderWithClient } from "@/testing/render";
import { ResultRow } from "./results";

function renderRow(p: ProjectSummary, loggedIn: boolean) {
  const router = createMemoryRouter([{ path: "/", element: <ResultRow p={p} view="short" fallbackKeywords={[]} loggedIn={loggedIn} /> }]);
  return renderWithClient(<RouterProvider router={router} />);
}

const base = { projectId: "69110000001", projectName: "จ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก", budget: 4_850_000, isInterestToBid: true };

describe("search row: the signed-in user's bid", () => {
  it("shows the price exact to the satang (from bidPrice_satang) and the reduction", () => {
    // 1,234,567.89 baht: the double alone would do too, the satang is what is exact.
    renderRow(create(ProjectSummarySchema, { ...base, bidPrice: 1234567.89, bidPriceSatang: 123456789n, reductionPercent: 3.25 }), true);
    const bid = screen.getByTestId("result-bid").textContent ?? "";
    expect(bid).toContain("1,234,567.89 บาท");
    expect(bid).toContain("(ต่ำกว่าราคากลาง 3.25%)");
    expect(bid.startsWith("ราคาที่จะเสนอ")).toBe(true);
  });

  it("shows a reduction alone when the project has no base to price it", () => {
    renderRow(create(ProjectSummarySchema, { ...base, reductionPercent: 7.5 }), true);
    const bid = screen.getByTestId("result-bid").textContent ?? "";
    expect(bid).toContain("ราคาที่จะเสนอ (ต่ำกว่าราคากลาง 7.50%)");
    expect(bid).not.toContain("บาท");
  });

  it("shows nothing without a bid", () => {
    renderRow(create(ProjectSummarySchema, base), true);
    expect(screen.queryByTestId("result-bid")).toBeNull();
  });

  it("a visitor's row has no marks and no bid", () => {
    renderRow(create(ProjectSummarySchema, { ...base, bidPrice: 10, bidPriceSatang: 1000n }), false);
    expect(screen.queryByTestId("result-bid")).toBeNull();
  });
});
