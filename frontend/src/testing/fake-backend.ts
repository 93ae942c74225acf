import { createAppTransport, setAppTransport, type AppTransport } from "@/lib/transport";

/** A recorded Connect call. */
export type Call = { service: string; method: string; body: Record<string, unknown>; headers: Headers; init: RequestInit };

type Answer = { status?: number; json: unknown; headers?: Record<string, string> };
export type Reply = Answer | Promise<Answer>;
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

/**
 * A Connect error as a BidRadar service answers it: connect-go's body, and
 * the reason (x-error-reason) and kind (x-error-kind) as headers, which the
 * client reads as the error's metadata.
 */
export function connectError(
  status: number,
  message: string,
  reason = "",
  headers: Record<string, string> = {},
): { status: number; json: unknown; headers: Record<string, string> } {
  const code = CONNECT_CODES[status] ?? "unknown";
  const meta: Record<string, string> = { ...headers };
  if (reason) Object.assign(meta, { "x-error-reason": reason, "x-error-kind": code });
  return { status, json: { code, message }, headers: meta };
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
    return new Response(JSON.stringify(r.json), {
      status: r.status ?? 200,
      headers: { ...r.headers, "content-type": "application/json" },
    });
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
