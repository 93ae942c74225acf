import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { getAccessToken, onAccessTokenChange } from "@/lib/session";
import { msg } from "@/i18n/th";
import { useAuthStore } from "@/stores/auth-store";
import { toast, useToastStore } from "@/stores/toast-store";
import { queryKeys } from "@/lib/query-keys";
import { useUnreadCount } from "../api/notifications-api";
import { NotificationSocket, socketURL } from "../lib/socket";

/** Bell toasts stay 5000 ms (docs/product.md#business-constants-and-limits). */
export const BELL_TOAST_MS = 5000;
/** docs/product.md#bell-updates: after a socket event the list reloads after 500 to 1000 ms. */
export const RELOAD_AFTER_EVENT_MS = 750;

/**
 * Keeps the signed-in user's bell live for the whole app (not per page):
 * the socket updates the count at once, shows a toast for each new
 * notification and reloads the lists shortly after.
 */
export function BellLive() {
  const userId = useAuthStore((s) => s.user?.id);
  const qc = useQueryClient();
  // The count also proves the session holds an access token before the socket needs it.
  const unread = useUnreadCount(!!userId);
  const ready = unread.isSuccess;

  useEffect(() => {
    const token = getAccessToken();
    if (!userId || !ready || !token) return;
    let reload: ReturnType<typeof setTimeout> | undefined;
    let warned = false;
    const s = new NotificationSocket(socketURL(window.location, userId), token, {
      onOpen: () => {
        warned = false;
      },
      onFrame: (f) => {
        if (f.type === "auth_success" || f.type === "auth_error" || f.type === "error") return;
        if (typeof f.unread_count === "number") qc.setQueryData(queryKeys.notifications.unread(), f.unread_count);
        if ((f.type === "bell_notification" || f.type === "notification") && f.data) {
          useToastStore.getState().push("info", `${f.data.title}: ${f.data.message}`, BELL_TOAST_MS);
        }
        clearTimeout(reload);
        reload = setTimeout(() => void qc.invalidateQueries({ queryKey: queryKeys.notifications.lists() }), RELOAD_AFTER_EVENT_MS);
      },
      onError: (e) => {
        // One warning per outage, then the final one when it gives up.
        if (e === "Connection error" && warned) return;
        warned = true;
        toast.warning(msg(e));
      },
    });
    s.start();
    const off = onAccessTokenChange((t) => (t ? s.setToken(t) : s.stop()));
    return () => {
      off();
      s.stop();
      clearTimeout(reload);
    };
  }, [userId, ready, qc]);

  return null;
}
