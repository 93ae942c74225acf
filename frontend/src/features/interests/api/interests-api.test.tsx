import { afterEach, describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClientProvider } from "@tanstack/react-query";
import { createQueryClient } from "@/lib/query-client";
import { queryKeys } from "@/lib/query-keys";
import { createFakeBackend, testUser } from "@/testing/fake-backend";
import { setAccessToken } from "@/lib/session";
import { useAuthStore } from "@/stores/auth-store";
import { useSaveBid } from "./interests-api";

afterEach(() => useAuthStore.setState({ user: null }));

function Saver({ projectId }: { projectId: string }) {
  const save = useSaveBid(projectId);
  return (
    <button type="button" onClick={() => save.mutate({ bidPrice: 1234567.89 })}>
      save
    </button>
  );
}

describe("useSaveBid", () => {
  it("a saved bid refreshes the search rows, which carry it", async () => {
    useAuthStore.setState({ user: testUser });
    setAccessToken("tok");
    const be = createFakeBackend({
      "InterestsService/UpdateInterest": (c) => ({
        json: { message: "ok", data: { idProject: c.body.projectId, bidPrice: 1234567.89, bidPriceSatang: "123456789", reductionPercent: 3.25 } },
      }),
    });
    be.install();
    const client = createQueryClient();
    const list = queryKeys.projects.list({ page: 1 });
    client.setQueryData(list, { data: [], pagination: {} });
    render(
      <QueryClientProvider client={client}>
        <Saver projectId="69099722201" />
      </QueryClientProvider>,
    );
    expect(client.getQueryState(list)?.isInvalidated).toBe(false);
    fireEvent.click(screen.getByText("save"));
    await waitFor(() => expect(client.getQueryState(list)?.isInvalidated).toBe(true));
    expect(be.calls.find((c) => c.method === "UpdateInterest")!.body).toMatchObject({ projectId: "69099722201", bidPrice: 1234567.89 });
  });
});
