/**
 * The bell's WebSocket (docs/product.md#websocket,
 * docs/product.md#socket-reconnect): the first message carries the access
 * token; the server answers auth_success or auth_error, then pushes
 * notification / bell_notification / unread_count_update. PostgreSQL is the
 * truth and the socket a hint
 * (docs/architecture.md#notifications-and-realtime), so nothing here is
 * replayed: a reconnect simply reloads the list.
 *
 * After an abnormal close the client reconnects with a doubling delay from
 * 1000 ms, at most 5 attempts ('Connection error' on each failure, 'Max
 * reconnection attempts reached' when it gives up). A new access token (a
 * refresh) re-authenticates by reconnecting with it.
 */

export type SocketFrame = {
  type: "notification" | "bell_notification" | "unread_count_update" | "auth_success" | "auth_error" | "error";
  data?: SocketNotification;
  unread_count?: number;
  message?: string;
};

/** A notification as the socket sends it (protojson, proto field names). */
export type SocketNotification = {
  id: string;
  title: string;
  message: string;
  category: string;
  priority: string;
  is_read: boolean;
  type: string;
  project_id: string;
  link: string;
  created_at: string;
};

export const RECONNECT_BASE_MS = 1000;
export const MAX_RECONNECT_ATTEMPTS = 5;

export type SocketError = "Connection error" | "Max reconnection attempts reached";

type Handlers = {
  onFrame: (f: SocketFrame) => void;
  onError: (e: SocketError) => void;
  /** Called once the server accepted the token (after every (re)connect). */
  onOpen?: () => void;
};

type WebSocketLike = Pick<WebSocket, "send" | "close" | "readyState"> & {
  onopen: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
  onclose: ((ev: CloseEvent) => void) | null;
  onerror: ((ev: Event) => void) | null;
};

export type SocketDeps = {
  create: (url: string) => WebSocketLike;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (t: unknown) => void;
};

const browserDeps: SocketDeps = {
  create: (url) => new WebSocket(url),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
};

/** Close codes after which reconnecting cannot help: the token or the user is wrong. */
const NO_RETRY_CODES = new Set([1000, 4401, 4403]);

export function socketURL(loc: Pick<Location, "protocol" | "host">, userId: string): string {
  return `${loc.protocol === "https:" ? "wss" : "ws"}://${loc.host}/ws/notifications/${encodeURIComponent(userId)}`;
}

export class NotificationSocket {
  private ws: WebSocketLike | null = null;
  private attempts = 0;
  private timer: unknown = null;
  private stopped = false;
  private token: string;

  constructor(
    private readonly url: string,
    token: string,
    private readonly h: Handlers,
    private readonly deps: SocketDeps = browserDeps,
  ) {
    this.token = token;
  }

  start(): void {
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.deps.clearTimer(this.timer);
    this.timer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      ws.close(1000, "bye");
    }
  }

  /** A refreshed access token: authenticate again on a new connection. */
  setToken(token: string): void {
    if (token === this.token) return;
    this.token = token;
    if (this.stopped) return;
    this.stop();
    this.attempts = 0;
    this.start();
  }

  private open(): void {
    const ws = this.deps.create(this.url);
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: "auth", token: this.token }));
    ws.onmessage = (ev) => {
      let f: SocketFrame;
      try {
        f = JSON.parse(String(ev.data)) as SocketFrame;
      } catch {
        return;
      }
      if (f.type === "auth_success") {
        this.attempts = 0;
        this.h.onOpen?.();
      }
      this.h.onFrame(f);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped || NO_RETRY_CODES.has(ev.code)) return;
      this.h.onError("Connection error");
      if (this.attempts >= MAX_RECONNECT_ATTEMPTS) {
        this.h.onError("Max reconnection attempts reached");
        return;
      }
      const delay = RECONNECT_BASE_MS * 2 ** this.attempts;
      this.attempts++;
      this.timer = this.deps.setTimer(() => {
        this.timer = null;
        if (!this.stopped) this.open();
      }, delay);
    };
  }
}
