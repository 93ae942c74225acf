/** docs/product.md#persistence: restoring persisted state gives up after 5000 ms; rendering waits for it. */
export const PERSIST_TIMEOUT_MS = 5000;

export type PersistApi = {
  hasHydrated: () => boolean;
  onFinishHydration: (fn: () => void) => () => void;
};

export type HydrationResult = "hydrated" | "timeout";

/** Resolves once every store has restored its state, or after the timeout. */
export function waitForHydration(stores: PersistApi[], timeoutMs = PERSIST_TIMEOUT_MS): Promise<HydrationResult> {
  const pending = stores.filter((s) => !s.hasHydrated());
  if (pending.length === 0) return Promise.resolve("hydrated");
  return new Promise((resolve) => {
    let left = pending.length;
    const unsubs: Array<() => void> = [];
    const timer = setTimeout(() => {
      unsubs.forEach((u) => u());
      resolve("timeout");
    }, timeoutMs);
    for (const s of pending) {
      unsubs.push(
        s.onFinishHydration(() => {
          left--;
          if (left === 0) {
            clearTimeout(timer);
            unsubs.forEach((u) => u());
            resolve("hydrated");
          }
        }),
      );
    }
  });
}
