import { useState } from "react";
import { th } from "@/i18n/th";
import { formatThaiDate } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { toast } from "@/stores/toast-store";
import { tsDate, useTeamCalendarFeed, useTeamCalendarFeedActions } from "../api/teams-api";
import { copyText } from "../lib/copy";

const t = th.teams;

/**
 * The team's calendar (.ics by a secret link) of the items' due dates and
 * the projects' deadlines: the link is shown once when made, with a copy
 * button; a new link ends the old one.
 */
export function TeamCalendarFeed({ teamId, canEdit }: { teamId: string; canEdit: boolean }) {
  const q = useTeamCalendarFeed(teamId);
  const { rotate, revoke } = useTeamCalendarFeedActions(teamId);
  const [url, setUrl] = useState("");
  const feed = q.data;
  const since = tsDate(feed?.createdAt);
  return (
    <section className="card team-section" aria-labelledby="team-feed-title" data-testid="team-calendar-feed">
      <h2 id="team-feed-title">{t.feedTitle}</h2>
      <p className="muted small">{t.feedLead}</p>
      {url ? (
        <div className="key-secret">
          <label className="field-label" htmlFor="team-feed-url">
            {t.feedUrlLabel}
          </label>
          <div className="copy-row">
            <input id="team-feed-url" readOnly value={url} onFocus={(e) => e.currentTarget.select()} data-testid="team-feed-url" />
            <Button size="sm" type="button" onClick={() => void copyText(url, t.feedCopied)} data-testid="team-feed-copy">
              {t.feedCopy}
            </Button>
          </div>
          <p className="small muted">{th.interests.feedOnce}</p>
          <p className="small muted">{t.feedSecret}</p>
        </div>
      ) : (
        <p className="small" data-testid="team-feed-state">
          {q.isPending ? th.common.loading : feed?.active && since ? th.interests.feedActive(formatThaiDate(since, true)) : t.feedNone}
        </p>
      )}
      {canEdit && (
        <div className="calendar-feed-actions">
          <Button
            size="sm"
            variant={feed?.active ? "secondary" : "primary"}
            loading={rotate.isPending}
            disabled={q.isPending}
            onClick={() =>
              rotate.mutate(undefined, {
                onSuccess: (res) => {
                  setUrl(`${window.location.origin}${res.path}`);
                  if (feed?.active) toast.success(t.feedRotated);
                },
              })
            }
            data-testid="team-feed-make"
          >
            {feed?.active ? t.feedRotate : t.feedCreate}
          </Button>
          {feed?.active && (
            <Button
              size="sm"
              variant="ghost"
              loading={revoke.isPending}
              onClick={() => revoke.mutate(undefined, { onSuccess: () => (setUrl(""), toast.success(th.interests.feedRevoked)) })}
              data-testid="team-feed-revoke"
            >
              {th.interests.feedRevoke}
            </Button>
          )}
        </div>
      )}
    </section>
  );
}
