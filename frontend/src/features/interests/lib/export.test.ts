import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { UserInterestSchema } from "@/gen/interests/v1/interests_pb";
import { EXPORT_HEADERS, exportRows, toCsv, toIcs } from "./export";

const rec = create(UserInterestSchema, {
  idProject: "69120000001",
  projectName: 'จ้างปรับปรุงอาคาร "หลังที่ 1", ชั้น 2',
  deptName: "เทศบาลตำบลบ้านติดตาม",
  budget: 2_000_000,
  statusName: "ประกาศเชิญชวน",
  announceTypeName: "ประกาศเชิญชวน",
  announceDate: "2026-11-01",
  isUserLike: true,
  isInterestToStepChk: true,
  isFill20: true,
  bidPrice: 1_900_000,
  reductionPercent: 5,
  lastUpdated: timestampFromDate(new Date("2026-11-25T03:00:00Z")),
  commentCount: 2,
});

describe("export of tracked projects", () => {
  it("has Thai headers, B.E. dates and exact numbers", () => {
    const [row] = exportRows([rec]);
    expect(row).toHaveLength(EXPORT_HEADERS.length);
    expect(row[6]).toBe("1 พ.ย. 2569");
    expect(row[3]).toBe(2_000_000);
    expect(row[11]).toBe(1_900_000);
    expect(row[8]).toBe("ติดตาม + สรุป 20 วัน");
    expect(String(row[13])).toContain("2569");
  });
  it("writes CSV that Excel opens in Thai, quoting commas and quotes", async () => {
    const csv = await toCsv([rec]);
    expect(csv.startsWith("\uFEFFรหัสโครงการ,ชื่อโครงการ")).toBe(true);
    expect(csv).toContain('"จ้างปรับปรุงอาคาร ""หลังที่ 1"", ชั้น 2"');
  });
  it("neutralises cells a spreadsheet would run as a formula, whatever field they come from", async () => {
    const risky = ["=HYPERLINK(\"http://x.example\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "=1\n2"];
    const csv = await toCsv(
      risky.map((v, i) => create(UserInterestSchema, { ...rec, idProject: v, projectName: v, deptName: `${i}`, announceTypeName: v, reductionPercent: -5 })),
    );
    const rows = (await import("papaparse")).default.parse<string[]>(csv.slice(1)).data.slice(1);
    expect(rows).toHaveLength(risky.length);
    rows.forEach((row, i) => {
      for (const col of [0, 1, 5]) expect(row[col]).toBe(`'${risky[i]}`);
      expect(row[2]).toBe(`${i}`);
      expect(row[12]).toBe("-5"); // a number stays a number
    });
  });
  it("writes a calendar of the followed and bidding projects' steps", async () => {
    const ics = await toIcs(
      [
        rec,
        create(UserInterestSchema, { ...rec, idProject: "69120000002", isInterestToStepChk: false }), // only liked
        create(UserInterestSchema, { ...rec, idProject: "69120000003", isInterestToStepChk: false, isInterestToBid: true }),
        create(UserInterestSchema, { ...rec, idProject: "69120000004", archived: true }),
      ],
      "https://bidradar.example",
    );
    expect(ics).toContain("BEGIN:VCALENDAR");
    expect(ics.match(/BEGIN:VEVENT/g)).toHaveLength(2);
    expect(ics).toContain("69120000003-step-2026-11-01@bidradar");
    expect(ics).toContain("DTSTART;VALUE=DATE:20261101");
    expect(ics).toContain("69120000001");
  });
  it("adds the bid submission and hearing deadlines of a followed project when known", async () => {
    const ics = await toIcs([create(UserInterestSchema, { ...rec, submissionDue: "2026-12-15", hearingDue: "2026-12-03", announceDate: "" })], "https://bidradar.example");
    expect(ics.match(/BEGIN:VEVENT/g)).toHaveLength(2);
    expect(ics).toContain("DTSTART;VALUE=DATE:20261215");
    expect(ics).toContain("DTSTART;VALUE=DATE:20261203");
    expect(ics).toContain("วันสุดท้ายยื่นข้อเสนอ");
    // the calendar link's UIDs: one event per project and deadline, wherever it moves
    expect(ics).toContain("UID:69120000001-submission@bidradar");
    expect(ics).toContain("UID:69120000001-hearing@bidradar");
  });
});
