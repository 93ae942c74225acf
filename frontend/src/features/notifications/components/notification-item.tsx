import { useState } from "react";
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

/** Projects a grouped alert lists before "show all". */
export const GROUP_SHOWN = 5;

/**
 * The projects of a grouped alert (one import's new matches of the user's
 * saved searches): a link to each, the first GROUP_SHOWN until asked for all.
 */
function GroupedProjects({ ids, onOpen }: { ids: string[]; onOpen: () => void }) {
  const [all, setAll] = useState(false);
  const shown = all ? ids : ids.slice(0, GROUP_SHOWN);
  return (
    <div className="bell-item-projects">
      <ul aria-label={t.groupedProjects(ids.length)} data-testid="bell-item-projects">
        {shown.map((id) => (
          <li key={id}>
            <Link to={`/project-details/${id}`} onClick={onOpen}>
              {t.projectLink(id)}
            </Link>
          </li>
        ))}
      </ul>
      {!all && ids.length > shown.length && (
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => setAll(true)}>
          {t.showAllProjects(ids.length - shown.length)}
        </button>
      )}
    </div>
  );
}

/** One notification: title, text, date (B.E.), link to its project (or to each of a grouped alert's); read and delete. */
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
        {n.projectIds.length > 0 && (
          <GroupedProjects
            ids={n.projectIds}
            onOpen={() => {
              if (!n.isRead) onRead(n.id);
              onOpen?.();
            }}
          />
        )}
        <p className="bell-item-meta">
          <CategoryLabel category={n.category} />
          {at && <time dateTime={at.toISOString()}>{formatThaiDate(at)}</time>}
          {n.link && n.projectIds.length === 0 && (
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
