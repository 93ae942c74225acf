import { useState } from "react";
import { th } from "@/i18n/th";
import { usePageTitle } from "@/hooks/use-page-title";
import { Button } from "@/components/ui/button";
import { Segmented } from "@/components/ui/segmented";
import { SelectControl } from "@/components/ui/select-control";
import {
  useClearNotifications,
  useDeleteNotification,
  useMarkAllRead,
  useMarkRead,
  useNotifications,
} from "../api/notifications-api";
import { NotificationItem } from "./notification-item";
import "../notifications.css";

const t = th.notifications;
const PER_PAGE = 20;
/** Every category the service writes ("" = all), in the order a bid manager cares. */
const CATEGORIES = ["", "search_match", "project_update", "competitor_win", "deadline", "team_mention", "team_update", "payment", "system_alert"] as const;
type ReadState = "all" | "unread" | "read";
const READ_STATES = [
  { value: "all", label: t.filterAll },
  { value: "unread", label: t.filterUnread },
  { value: "read", label: t.filterRead },
] as const;

/** /notifications: the whole bell with filters, paging and bulk actions. */
export function NotificationsPage() {
  usePageTitle(t.title);
  const [category, setCategory] = useState<(typeof CATEGORIES)[number]>("");
  const [state, setState] = useState<ReadState>("all");
  const [page, setPage] = useState(1);
  const isRead = state === "all" ? undefined : state === "read";
  const list = useNotifications({ page, perPage: PER_PAGE, category, isRead });
  const markRead = useMarkRead();
  const markAll = useMarkAllRead();
  const del = useDeleteNotification();
  const clear = useClearNotifications();

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
          <Button variant="ghost" size="sm" disabled={unread === 0} onClick={() => markAll.mutate(undefined)}>
            {t.markAllRead}
          </Button>
          <Button variant="ghost" size="sm" onClick={() => clear.mutate({ archive: false, isRead: true })}>
            {t.clearRead}
          </Button>
          <Button variant="ghost" size="sm" disabled={total === 0} onClick={() => window.confirm(t.confirmArchiveAll) && clear.mutate({ archive: true })}>
            {t.archiveAll}
          </Button>
        </div>
      </header>
      <div className="notifications-filters">
        <SelectControl
          label={t.filterCategory}
          value={category}
          options={CATEGORIES.map((c) => ({ value: c, label: t.categories[c] }))}
          onChange={(c) => choose(() => setCategory(c))}
          testId="filter-category"
        />
        <Segmented<ReadState> label={t.filterState} value={state} options={READ_STATES} onChange={(s) => choose(() => setState(s))} />
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
          <Button variant="ghost" size="sm" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t.prev}
          </Button>
          <span>{t.page(page, pages)}</span>
          <Button variant="ghost" size="sm" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t.next}
          </Button>
        </nav>
      )}
    </section>
  );
}
