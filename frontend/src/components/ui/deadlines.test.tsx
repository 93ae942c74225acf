import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { Deadlines } from "./deadlines";

// 10:00 on 28 Nov 2026 in Bangkok
const now = new Date("2026-11-28T03:00:00Z");

describe("Deadlines", () => {
  it("shows the days left in Thai with a Buddhist-era date", () => {
    render(<Deadlines submissionDue="2026-11-30" hearingDue="2026-11-28" now={now} />);
    expect(screen.getByTestId("deadline-submission").textContent).toBe("ยื่นข้อเสนอถึง 30 พ.ย. 2569 เหลือ 2 วัน");
    expect(screen.getByTestId("deadline-hearing").textContent).toContain("วันสุดท้าย");
    expect(screen.getByTestId("deadline-submission").className).toContain("deadline-urgent");
  });
  it("shows a passed deadline as closed", () => {
    render(<Deadlines submissionDue="2026-11-27" now={now} />);
    expect(screen.getByTestId("deadline-submission").textContent).toContain("ปิดรับแล้ว");
    expect(screen.getByTestId("deadline-submission").className).toContain("deadline-closed");
    expect(screen.queryByTestId("deadline-hearing")).toBeNull();
  });
  it("shows nothing without deadlines", () => {
    const { container } = render(<Deadlines submissionDue="" hearingDue="" now={now} />);
    expect(container.textContent).toBe("");
  });
});
