import { describe, expect, it } from "vitest";
import { MAX_RECONNECT_ATTEMPTS, NotificationSocket, socketURL, type SocketDeps, type SocketFrame } from "./socket";

class FakeWS {
  readyState = 0;
  sent: string[] = [];
  closed: number | null = null;
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  constructor(public url: string) {}
  send(s: string) {
    this.sent.push(s);
  }
  close(code = 1000) {
    this.closed = code;
  }
  serverOpen() {
    this.onopen?.(new Event("open"));
  }
  serverSend(f: SocketFrame) {
    this.onmessage?.({ data: JSON.stringify(f) } as MessageEvent);
  }
  serverClose(code: number) {
    this.onclose?.({ code } as CloseEvent);
  }
}

function harness() {
  const sockets: FakeWS[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const deps: SocketDeps = {
    create: (url) => {
      const ws = new FakeWS(url);
      sockets.push(ws);
      return ws;
    },
    setTimer: (fn, ms) => {
      timers.push({ fn, ms });
      return timers.length;
    },
    clearTimer: () => {},
  };
  const frames: SocketFrame[] = [];
  const errors: string[] = [];
  const s = new NotificationSocket("ws://x/ws/notifications/u1", "tok-1", { onFrame: (f) => frames.push(f), onError: (e) => errors.push(e) }, deps);
  return { s, sockets, timers, frames, errors };
}

describe("NotificationSocket", () => {
  it("sends the token first and passes frames on", () => {
    const h = harness();
    h.s.start();
    h.sockets[0].serverOpen();
    expect(JSON.parse(h.sockets[0].sent[0])).toEqual({ type: "auth", token: "tok-1" });
    h.sockets[0].serverSend({ type: "auth_success" });
    h.sockets[0].serverSend({ type: "unread_count_update", unread_count: 3 });
    expect(h.frames.map((f) => f.type)).toEqual(["auth_success", "unread_count_update"]);
  });

  it("reconnects after an abnormal close with doubling delays from 1000 ms, 5 attempts at most", () => {
    const h = harness();
    h.s.start();
    for (let i = 0; i < MAX_RECONNECT_ATTEMPTS; i++) {
      h.sockets[h.sockets.length - 1].serverClose(1006);
      h.timers[h.timers.length - 1].fn();
    }
    expect(h.timers.map((t) => t.ms)).toEqual([1000, 2000, 4000, 8000, 16000]);
    h.sockets[h.sockets.length - 1].serverClose(1006);
    expect(h.errors.filter((e) => e === "Connection error")).toHaveLength(6);
    expect(h.errors.at(-1)).toBe("Max reconnection attempts reached");
    expect(h.sockets).toHaveLength(6);
  });

  it("a successful authentication resets the attempts", () => {
    const h = harness();
    h.s.start();
    h.sockets[0].serverClose(1006);
    h.timers[0].fn();
    h.sockets[1].serverOpen();
    h.sockets[1].serverSend({ type: "auth_success" });
    h.sockets[1].serverClose(1006);
    expect(h.timers.map((t) => t.ms)).toEqual([1000, 1000]);
  });

  it("does not retry a refused token or a normal close", () => {
    const h = harness();
    h.s.start();
    h.sockets[0].serverClose(4401);
    expect(h.timers).toHaveLength(0);
    expect(h.errors).toEqual([]);
  });

  it("a new token re-authenticates on a new connection; stop closes", () => {
    const h = harness();
    h.s.start();
    h.s.setToken("tok-2");
    expect(h.sockets[0].closed).toBe(1000);
    h.sockets[1].serverOpen();
    expect((JSON.parse(h.sockets[1].sent[0]) as { token: string }).token).toBe("tok-2");
    h.s.stop();
    expect(h.sockets[1].closed).toBe(1000);
    expect(h.timers).toHaveLength(0);
  });

  it("builds ws and wss URLs", () => {
    expect(socketURL({ protocol: "http:", host: "localhost:8080" }, "u 1")).toBe("ws://localhost:8080/ws/notifications/u%201");
    expect(socketURL({ protocol: "https:", host: "bidradar.co.th" }, "u1")).toBe("wss://bidradar.co.th/ws/notifications/u1");
  });
});
