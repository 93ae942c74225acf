import { useState } from "react";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { th } from "@/i18n/th";
import { formatThaiDate } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { toast } from "@/stores/toast-store";
import { useCalendarFeed, useCalendarFeedActions } from "../api/interests-api";

const t = th.interests;

/**
 * The subscribable calendar of the followed and bidding projects: a secret
 * link (calendar apps send no cookies), shown once when made, with a copy
 * button; a new link ends the old one, and the link can be revoked.
 */
export function CalendarFeedSection() {
  const q = useCalendarFeed();
  const { rotate, revoke } = useCalendarFeedActions();
  const [url, setUrl] = useState("");
  const feed = q.data;
  const make = () =>
    rotate.mutate(undefined, {
      onSuccess: (res) => setUrl(`${window.location.origin}${res.path}`),
    });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      toast.success(t.feedCopied);
    } catch {
      toast.error(t.feedCopyFailed);
    }
  };
  return (
    <section className="card calendar-feed" aria-labelledby="calendar-feed-title" data-testid="calendar-feed">
      <h2 id="calendar-feed-title">{t.feedTitle}</h2>
      <p className="muted">{t.feedLead}</p>
      {url ? (
        <div className="calendar-feed-url">
          <label className="field-label" htmlFor="calendar-feed-url">
            {t.feedUrlLabel}
          </label>
          <div className="calendar-feed-row">
            <input id="calendar-feed-url" readOnly value={url} onFocus={(e) => e.currentTarget.select()} data-testid="calendar-feed-url" />
            <Button size="sm" type="button" onClick={() => void copy()} data-testid="calendar-feed-copy">
              {t.feedCopy}
            </Button>
          </div>
          <p className="small muted">{t.feedOnce}</p>
          <p className="small muted">{t.feedSecret}</p>
        </div>
      ) : (
        <p className="small" data-testid="calendar-feed-state" aria-busy={q.isPending}>
          {q.isPending
            ? th.common.loading
            : feed?.active && feed.createdAt
              ? t.feedActive(formatThaiDate(timestampDate(feed.createdAt), true))
              : t.feedNone}
        </p>
      )}
      <div className="calendar-feed-actions">
        <Button size="sm" variant={feed?.active ? "secondary" : "primary"} type="button" loading={rotate.isPending} disabled={q.isPending} onClick={make} data-testid="calendar-feed-make">
          {feed?.active ? t.feedRotate : t.feedCreate}
        </Button>
        {feed?.active && (
          <Button
            size="sm"
            variant="ghost"
            type="button"
            loading={revoke.isPending}
            onClick={() =>
              revoke.mutate(undefined, {
                onSuccess: () => {
                  setUrl("");
                  toast.success(t.feedRevoked);
                },
              })
            }
            data-testid="calendar-feed-revoke"
          >
            {t.feedRevoke}
          </Button>
        )}
      </div>
    </section>
  );
}
