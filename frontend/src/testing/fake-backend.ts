import { createAppTransport, setAppTransport, type AppTransport } from "@/lib/transport";

/** A recorded Connect call. */
export type Call = { service: string; method: string; body: Record<string, unknown>; headers: Headers; init: RequestInit };

export type Reply = { status?: number; json: unknown } | Promise<{ status?: number; json: unknown }>;
export type Handler = (call: Call) => Reply;

const CONNECT_CODES: Record<number, string> = {
  400: "invalid_argument",
  401: "unauthenticated",
  403: "permission_denied",
  404: "not_found",
  409: "already_exists",
  429: "resource_exhausted",
  503: "unavailable",
};

/** A Connect error body as connect-go writes it. */
export function connectError(status: number, message: string): { status: number; json: unknown } {
  return { status, json: { code: CONNECT_CODES[status] ?? "unknown", message } };
}

/**
 * A fetch that speaks the Connect unary JSON protocol against handlers keyed
 * "Service/Method" (e.g. "AuthService/GetMe"), so tests run the real
 * connect-web client, interceptors included.
 */
export function createFakeBackend(handlers: Record<string, Handler>) {
  const calls: Call[] = [];
  const fetchImpl: typeof fetch = async (input, init = {}) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const [, fullService, method] = url.pathname.split("/");
    const service = fullService.split(".").pop()!;
    const text = typeof init.body === "string" ? init.body : init.body ? new TextDecoder().decode(init.body as Uint8Array) : "{}";
    const call: Call = { service, method, body: JSON.parse(text || "{}") as Record<string, unknown>, headers: new Headers(init.headers), init };
    calls.push(call);
    const h = handlers[`${service}/${method}`];
    if (!h) {
      return new Response(JSON.stringify({ code: "unimplemented", message: `no handler for ${service}/${method}` }), {
        status: 501,
        headers: { "content-type": "application/json" },
      });
    }
    const r = await h(call);
    return new Response(JSON.stringify(r.json), { status: r.status ?? 200, headers: { "content-type": "application/json" } });
  };
  const transport: AppTransport = createAppTransport({ baseUrl: "http://127.0.0.1:9", fetch: fetchImpl });
  return { calls, fetch: fetchImpl, transport, install: () => setAppTransport(transport) };
}

export const testUser = {
  idUser: "u-1",
  id: "u-1",
  name: "สมชาย ใจดี",
  username: "somchai",
  email: "somchai@example.co.th",
  pictureUrl: "",
  lineId1: "",
  twoStepVerification: "disabled",
};
