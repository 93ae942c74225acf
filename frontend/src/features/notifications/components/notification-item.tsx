import { Link } from "react-router";
import { th } from "@/i18n/th";
import { formatThaiDate } from "@/lib/format";
import type { Notification } from "@/gen/notification/v1/notification_pb";
import { IconTrophy } from "@/components/ui/icons";
import { createdAt } from "../api/notifications-api";

const t = th.notifications;

/** Categories drawn with an icon beside their label (a competitor's win stands out in the list). */
const CATEGORY_ICONS: Record<string, typeof IconTrophy> = { competitor_win: IconTrophy };

type Props = {
  n: Notification;
  onRead: (id: string) => void;
  onDelete?: (id: string) => void;
  onOpen?: () => void;
};

/** One notification: title, text, date (B.E.), link to its project; read and delete. */
export function NotificationItem({ n, onRead, onDelete, onOpen }: Props) {
  const at = createdAt(n);
  return (
    <li className={`bell-item${n.isRead ? "" : " unread"}`} data-testid="bell-item" data-read={n.isRead}>
      <div className="bell-item-body">
        <p className="bell-item-title">
          {!n.isRead && <span className="bell-dot" aria-label={t.unreadBadge} />}
          {n.title}
        </p>
        <p className="bell-item-text">{n.message}</p>
        <p className="bell-item-meta">
          <CategoryLabel category={n.category} />
          {at && <time dateTime={at.toISOString()}>{formatThaiDate(at)}</time>}
          {n.link && (
            <Link
              to={n.link}
              onClick={() => {
                if (!n.isRead) onRead(n.id);
                onOpen?.();
              }}
            >
              {t.open}
            </Link>
          )}
        </p>
      </div>
      <div className="bell-item-actions">
        {!n.isRead && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => onRead(n.id)} data-testid="bell-mark-read">
            {t.markRead}
          </button>
        )}
        {onDelete && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => onDelete(n.id)} aria-label={`${t.delete} ${n.title}`}>
            {t.delete}
          </button>
        )}
      </div>
    </li>
  );
}

function CategoryLabel({ category }: { category: string }) {
  const Icon = CATEGORY_ICONS[category];
  return (
    <span className={`bell-cat bell-cat-${category}`} data-testid="bell-category">
      {Icon && <Icon size={14} />}
      {t.categories[category] ?? category}
    </span>
  );
}
