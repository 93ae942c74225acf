import { useState } from "react";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import {
  useClearNotifications,
  useCreateTestNotification,
  useDeleteNotification,
  useMarkAllRead,
  useMarkRead,
  useNotifications,
} from "../api/notifications-api";
import { NotificationItem } from "./notification-item";
import "../notifications.css";

const t = th.notifications;
const PER_PAGE = 20;
const CATEGORIES = ["", "search_match", "project_update", "system_alert"];
type ReadState = "all" | "unread" | "read";

/** /notifications: the whole bell with filters, paging and bulk actions. */
export function NotificationsPage() {
  usePageTitle(t.title);
  const [category, setCategory] = useState("");
  const [state, setState] = useState<ReadState>("all");
  const [page, setPage] = useState(1);
  const isRead = state === "all" ? undefined : state === "read";
  const list = useNotifications({ page, perPage: PER_PAGE, category, isRead });
  const markRead = useMarkRead();
  const markAll = useMarkAllRead();
  const del = useDeleteNotification();
  const clear = useClearNotifications();
  const test = useCreateTestNotification();

  const items = list.data?.notifications ?? [];
  const total = list.data?.total ?? 0;
  const unread = list.data?.unreadCount ?? 0;
  const pages = Math.max(1, Math.ceil(total / PER_PAGE));
  const choose = (f: () => void) => {
    f();
    setPage(1);
  };

  return (
    <section className="container notifications-page" data-testid="notifications-page">
      <header className="notifications-head">
        <div>
          <h1>{t.title}</h1>
          <p className="muted">{t.lead}</p>
        </div>
        <div className="notifications-actions">
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => test.mutate(undefined)}>
            {t.sendTest}
          </button>
          <button type="button" className="btn btn-ghost btn-sm" disabled={unread === 0} onClick={() => markAll.mutate(undefined)}>
            {t.markAllRead}
          </button>
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => clear.mutate({ archive: false, isRead: true })}>
            {t.clearRead}
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            disabled={total === 0}
            onClick={() => window.confirm(t.confirmArchiveAll) && clear.mutate({ archive: true })}
          >
            {t.archiveAll}
          </button>
        </div>
      </header>
      <div className="notifications-filters">
        <label>
          {t.filterCategory}
          <select value={category} onChange={(e) => choose(() => setCategory(e.target.value))} data-testid="filter-category">
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t.categories[c]}
              </option>
            ))}
          </select>
        </label>
        <div role="group" aria-label={t.filterState} className="notifications-state">
          {(["all", "unread", "read"] as const).map((s) => (
            <button
              key={s}
              type="button"
              className={`btn btn-sm ${state === s ? "btn-primary" : "btn-ghost"}`}
              aria-pressed={state === s}
              onClick={() => choose(() => setState(s))}
            >
              {s === "all" ? t.filterAll : s === "unread" ? t.filterUnread : t.filterRead}
            </button>
          ))}
        </div>
        <p className="muted" data-testid="notifications-total">
          {t.total(total, unread)}
        </p>
      </div>
      {items.length === 0 ? (
        <div className="bell-empty-page">
          <p>{t.empty}</p>
          <p className="muted">{t.emptyHint}</p>
        </div>
      ) : (
        <ul className="bell-list page">
          {items.map((n) => (
            <NotificationItem key={n.id} n={n} onRead={(id) => markRead.mutate(id)} onDelete={(id) => del.mutate(id)} />
          ))}
        </ul>
      )}
      {pages > 1 && (
        <nav className="notifications-pager" aria-label={t.page(page, pages)}>
          <button type="button" className="btn btn-ghost btn-sm" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t.prev}
          </button>
          <span>{t.page(page, pages)}</span>
          <button type="button" className="btn btn-ghost btn-sm" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t.next}
          </button>
        </nav>
      )}
    </section>
  );
}
