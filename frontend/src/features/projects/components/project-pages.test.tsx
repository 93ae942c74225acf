import { describe, expect, it } from "vitest";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { renderApp } from "@/testing/render";
import { connectError, createFakeBackend, testUser } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { msg, th } from "@/i18n/th";

const project = {
  summary: {
    projectId: "69099722203",
    projectName: "ประกวดราคาจ้างก่อสร้างถนนคอนกรีตเสริมเหล็ก หมู่ที่ ๔",
    deptName: "องค์การบริหารส่วนตำบลหนองบัว",
    deptSubName: "กองช่าง",
    ministryName: "กระทรวงมหาดไทย",
    provinceName: "อุดรธานี",
    methodName: "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)",
    typeName: "จ้างก่อสร้าง",
    budgetYear: 2569,
    status: "contracted",
    statusName: "จัดทำสัญญา/บริหารสัญญา",
    budget: 4850000,
    budgetSatang: "485000050", // exact satang wins over the display double
    referencePrice: 4812500,
    agreedPrice: 4390000,
    winnerName: "ห้างหุ้นส่วนจำกัด ทองคำบัว การโยธา",
    egpUrl: "https://process5.gprocurement.go.th/doc-w0",
  },
  description: "ถนนกว้าง ๕ เมตร",
  announcements: [
    { typeCode: "W0", typeName: "ประกาศรายชื่อผู้ชนะการเสนอราคา", date: "2026-09-01", link: "https://process5.gprocurement.go.th/doc-w0" },
    { typeCode: "P0", typeName: "แผนการจัดซื้อจัดจ้าง", date: "2026-06-02" },
    { typeCode: "D0", typeName: "", date: "2026-07-15", link: "https://process5.gprocurement.go.th/doc-d0" },
  ],
  contracts: [{ contractNo: "กส.14/2569", contractDate: "2026-09-20", contractPrice: 4390000, contractStatus: "ระหว่างดำเนินการ", winnerTaxId: "0305560001659", endDate: "2027-03-19" }],
  source: "egp-rss",
};

function signIn() {
  useAuthStore.setState({ user: testUser });
  setAccessToken("tok");
}

describe("/project-details/:projectId", () => {
  it("shows every field, the timeline oldest first with B.E. dates, prices with the saving, winner and links", async () => {
    signIn();
    const be = createFakeBackend({ "ProjectsService/GetProject": () => ({ json: { project } }) });
    be.install();
    renderApp("/project-details/69099722203");
    const view = await screen.findByTestId("project-details", {}, { timeout: 5000 });
    const get = be.calls.find((c) => c.method === "GetProject")!;
    expect(get.body).toEqual({ projectId: "69099722203" });
    expect(get.headers.get("authorization")).toBe("Bearer tok");
    expect(screen.getByTestId("pd-name").textContent).toBe(project.summary.projectName);
    for (const text of ["กระทรวงมหาดไทย", "อุดรธานี", "ประกวดราคาอิเล็กทรอนิกส์ (e-bidding)", "จ้างก่อสร้าง", "ถนนกว้าง ๕ เมตร"]) expect(within(view).getAllByText(text).length).toBeGreaterThan(0);
    expect(screen.getByTestId("pd-budget-year").textContent).toContain("พ.ศ. 2569");
    expect(screen.getAllByTestId("status-badge")[0].textContent).toBe("จัดทำสัญญา/บริหารสัญญา");

    const steps = screen.getAllByTestId("pd-step");
    expect(steps.map((s) => s.querySelector(".step-code")!.textContent)).toEqual(["P0", "D0", "W0"]);
    expect(steps[0].textContent).toContain("2 มิถุนายน 2569");
    expect(steps[1].textContent).toContain("ประกาศเชิญชวน"); // Thai name from the code when the server sent none
    expect(steps[2].textContent).toContain(th.projectDetails.latest);
    expect(within(steps[1]).getByRole("link").getAttribute("href")).toBe("https://process5.gprocurement.go.th/doc-d0");

    expect(screen.getByTestId("pd-budget").textContent).toContain("4,850,000.50 บาท");
    expect(within(view).getByText("ระหว่างดำเนินการ")).toBeTruthy();
    expect(screen.getByTestId("pd-ref").textContent).toContain("4,812,500.00 บาท");
    expect(screen.getByTestId("pd-agreed").textContent).toContain("4,390,000.00 บาท");
    expect(screen.getByTestId("pd-saving").textContent).toContain("ต่ำกว่าราคากลาง 8.78%");
    expect(screen.getByTestId("pd-winner-name").textContent).toContain("ห้างหุ้นส่วนจำกัด ทองคำบัว การโยธา");
    expect(within(view).getByText("กส.14/2569")).toBeTruthy();
    expect(within(view).getByText("20 ก.ย. 2569")).toBeTruthy();
    expect(screen.getByTestId("pd-egp").getAttribute("href")).toBe("https://process5.gprocurement.go.th/doc-w0");
    expect(screen.getByTestId("pd-ocds").getAttribute("href")).toBe("/app/backend/api/v1/projects/69099722203/ocds");
    await waitFor(() => expect(document.title).toContain(project.summary.projectName));
  });

  it("a plan without the OCDS export: the way to the plans instead, its label wrapping only at its spaces (it is wider than a phone)", async () => {
    signIn();
    createFakeBackend({
      "ProjectsService/GetProject": () => ({ json: { project } }),
      "SubscriptionService/GetMySubscription": () => ({ json: { tier: "free", features: [] } }),
    }).install();
    renderApp("/project-details/69099722203");
    const link = await screen.findByTestId("pd-ocds-upgrade", {}, { timeout: 5000 });
    expect(screen.queryByTestId("pd-ocds")).toBeNull();
    expect(link.getAttribute("href")).toBe("/user-settings/pricing");
    expect(link.textContent).toBe(th.projectDetails.ocdsUpgrade);
    expect(link.classList.contains("pd-action-wrap")).toBe(true);
    // One flex item (a span holding the groups), so the groups can wrap inside it.
    expect(link.children).toHaveLength(1);
    const groups = [...link.children[0].querySelectorAll(".nobr")].map((g) => g.textContent);
    expect(groups).toEqual(th.projectDetails.ocdsUpgrade.split(" "));
    expect(groups.length).toBeGreaterThan(1);
  });

  it("a demo project says so and links nowhere on e-GP (its id does not exist there)", async () => {
    signIn();
    const demo = {
      ...project,
      summary: { ...project.summary, projectId: "69110000042", egpUrl: "" },
      announcements: project.announcements.map((a) => ({ ...a, link: "" })),
      source: "demo",
    };
    createFakeBackend({ "ProjectsService/GetProject": () => ({ json: { project: demo } }) }).install();
    renderApp("/project-details/69110000042");
    const view = await screen.findByTestId("project-details", {}, { timeout: 5000 });
    expect(screen.getByTestId("pd-demo").textContent).toBe(th.demoChip);
    expect(within(view).getByText(th.projectSources.demo)).toBeTruthy();
    expect(screen.queryByTestId("pd-egp")).toBeNull();
    const links = within(view).queryAllByRole("link").map((l) => l.getAttribute("href") ?? "");
    expect(links.filter((h) => h.includes("gprocurement"))).toEqual([]);
  });

  it("/project-details?id=… works too", async () => {
    signIn();
    createFakeBackend({ "ProjectsService/GetProject": () => ({ json: { project } }) }).install();
    renderApp("/project-details?id=69099722203");
    expect(await screen.findByTestId("project-details", {}, { timeout: 5000 })).toBeTruthy();
  });

  it("not found", async () => {
    signIn();
    createFakeBackend({ "ProjectsService/GetProject": () => connectError(404, "Project not found", "project-not-found") }).install();
    renderApp("/project-details/00000000000");
    expect((await screen.findByTestId("pd-not-found", {}, { timeout: 5000 })).textContent).toContain(th.projectDetails.notFoundLead("00000000000"));
  });

  it("error state with retry", async () => {
    signIn();
    let fail = true;
    createFakeBackend({ "ProjectsService/GetProject": () => (fail ? connectError(503, "down") : { json: { project } }) }).install();
    renderApp("/project-details/69099722203");
    const err = await screen.findByTestId("pd-error", {}, { timeout: 5000 });
    expect(err.textContent).toContain(msg("Service is currently unavailable. Please try again later."));
    fail = false;
    await act(async () => {
      fireEvent.click(within(err).getByRole("button"));
    });
    expect(await screen.findByTestId("project-details", {}, { timeout: 5000 })).toBeTruthy();
  });

  it("without an id: a lookup that validates 11 digits", async () => {
    signIn();
    createFakeBackend({ "ProjectsService/GetProject": () => ({ json: { project } }) }).install();
    const { router } = renderApp("/project-details");
    await screen.findByTestId("pd-lookup", {}, { timeout: 5000 });
    const input = screen.getByLabelText(th.projectDetails.lookupLabel);
    fireEvent.change(input, { target: { value: "123" } });
    fireEvent.submit(input.closest("form")!);
    expect(screen.getByRole("alert").textContent).toBe(th.projectDetails.lookupInvalid);
    fireEvent.change(input, { target: { value: "๖๙๐๙๙๗๒๒๒๐๓" } });
    await act(async () => {
      fireEvent.submit(input.closest("form")!);
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/project-details/69099722203"));
  });

  it("visitors go to /login first", async () => {
    const { router } = renderApp("/project-details/69099722203");
    await waitFor(() => expect(router.state.location.pathname).toBe("/login"));
  });
});

describe("/project-test", () => {
  it("renders the details view on a sample project", async () => {
    renderApp("/project-test");
    expect(await screen.findByTestId("project-details", {}, { timeout: 5000 })).toBeTruthy();
    expect(screen.getAllByTestId("pd-step")).toHaveLength(4);
  });
});
