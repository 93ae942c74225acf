import { afterEach, beforeEach } from "vitest";
import { cleanup, configure } from "@testing-library/react";
import { setAccessToken } from "@/lib/session";
import { setAppTransport } from "@/lib/transport";
import { initialAuthState, useAuthStore } from "@/stores/auth-store";
import { useBidsStore } from "@/stores/bids-store";
import { useToastStore } from "@/stores/toast-store";

// findBy*/waitFor give up after 1 s by default: tight for a lazy route on
// two loaded CI cores. 5 s, as the whole-app tests already pass explicitly.
configure({ asyncUtilTimeout: 5000 });

// jsdom lacks these; the header and the hash scroll use them.
if (!window.matchMedia) {
  window.matchMedia = (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener: () => {},
    removeEventListener: () => {},
    addListener: () => {},
    removeListener: () => {},
    dispatchEvent: () => false,
  });
}
window.scrollTo = () => {};
Element.prototype.scrollIntoView = function () {};

/** bulletproof's zustand reset: every test starts from a clean state. */
beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  setAccessToken(null);
  setAppTransport(null);
  useAuthStore.setState({ ...initialAuthState });
  useBidsStore.setState({ bids: {} });
  useToastStore.setState({ toasts: [] });
});

afterEach(() => {
  cleanup();
  document.body.style.overflow = "";
});
