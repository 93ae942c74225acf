import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { IconBell } from "@/components/ui/icons";
import { th } from "@/i18n/th";
import { useMarkAllRead, useMarkRead, useNotifications, useUnreadCount } from "../api/notifications-api";
import { NotificationItem } from "./notification-item";
import "../notifications.css";

const t = th.notifications;

/** The header bell: unread count, and the latest ten in a dropdown. */
export function BellButton() {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const unread = useUnreadCount(true).data ?? 0;
  const list = useNotifications({ page: 1, perPage: 10, category: "" }, open);
  const markRead = useMarkRead();
  const markAll = useMarkAllRead();

  useEffect(() => {
    if (!open) return;
    const onDoc = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("mousedown", onDoc);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDoc);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  const items = list.data?.notifications ?? [];
  return (
    <div className="bell" ref={ref}>
      <button
        type="button"
        className="bell-button"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-label={t.bellLabel(unread)}
        onClick={() => setOpen((o) => !o)}
        data-testid="bell-button"
      >
        <IconBell size={22} />
        {unread > 0 && (
          <span className="bell-count" data-testid="bell-count">
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </button>
      {open && (
        <div className="bell-panel" role="dialog" aria-label={t.title} data-testid="bell-panel">
          <div className="bell-panel-head">
            <strong>{t.title}</strong>
            {unread > 0 && (
              <button type="button" className="btn btn-ghost btn-sm" onClick={() => markAll.mutate(undefined)} data-testid="bell-mark-all">
                {t.markAllRead}
              </button>
            )}
          </div>
          {items.length === 0 ? (
            <p className="bell-empty">{list.isPending ? "…" : t.empty}</p>
          ) : (
            <ul className="bell-list">
              {items.map((n) => (
                <NotificationItem key={n.id} n={n} onRead={(id) => markRead.mutate(id)} onOpen={() => setOpen(false)} />
              ))}
            </ul>
          )}
          <Link to="/notifications" className="bell-see-all" onClick={() => setOpen(false)} data-testid="bell-see-all">
            {t.seeAll}
          </Link>
        </div>
      )}
    </div>
  );
}
