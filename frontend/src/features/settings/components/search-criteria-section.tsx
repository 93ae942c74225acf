import { useState } from "react";
import { Link } from "react-router";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { th } from "@/i18n/th";
import { getClient } from "@/lib/clients";
import { errorMessage } from "@/lib/errors";
import { formatNumber, formatThaiDate } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";
import { ProjectsService } from "@/gen/projects/v1/projects_pb";
import { toast } from "@/stores/toast-store";
import { CriteriaSummary, editHref, normalRoom, normalUsage, overnightRoom, overnightUsage, useSavedCriteria } from "@/features/search";
import { useMySubscription } from "@/features/payment";
import "../settings.css";

const t = th.settingsPages;
const projects = () => getClient(ProjectsService);

/**
 * /user-settings/search-criteria: the saved searches, each with its
 * criteria in Thai and its type; run, edit (on the search page) or delete
 * each; the overnight searches counted against the plan's limit.
 */
export function SearchCriteriaSection() {
  const qc = useQueryClient();
  const list = useSavedCriteria();
  const sub = useMySubscription();
  const [ran, setRan] = useState<{ id: string; total: number; rows: { id: string; name: string }[] } | null>(null);
  const run = useMutation({
    mutationFn: (id: string) => projects().recallSaveCriteria({ criteriaId: id }),
    onSuccess: (r, id) =>
      setRan({ id, total: Number(r.pagination?.total ?? r.data.length), rows: r.data.slice(0, 10).map((p) => ({ id: p.projectId, name: p.projectName })) }),
    onError: (err) => toast.error(errorMessage(err, "Failed to fetch data")),
  });
  const del = useMutation({
    mutationFn: (id: string) => projects().deleteSearchCriteria({ criteriaId: id }),
    onSuccess: () => {
      toast.success(t.deleted);
      setRan(null);
      void qc.invalidateQueries({ queryKey: queryKeys.projects.savedCriteria() });
      void qc.invalidateQueries({ queryKey: queryKeys.subscription.mine() });
    },
    onError: (err) => toast.error(errorMessage(err, "Failed to fetch data")),
  });
  const items = list.data?.criteria ?? [];
  const l = sub.data?.combinationLimits;
  const limits = l && { searchCombination: l.searchCombination, overnightSearchSave: l.overnightSearchSave, normalSearchSave: l.normalSearchSave };
  const types = list.data && items.map((c) => c.searchType);
  const room = overnightRoom(limits, types);
  const normal = normalRoom(limits, types);
  return (
    <div data-testid="settings-criteria">
      {room && normal && (
        <div className="criteria-usage">
          <p>
            <strong data-testid="normal-usage">{normalUsage(normal)}</strong>
            <span className="muted"> · </span>
            <strong data-testid="overnight-usage">{overnightUsage(room)}</strong>
          </p>
          {normal.full && (
            <p className="muted small" data-testid="normal-full">
              {normal.limit === 0 ? th.savedSearch.normalNone : th.savedSearch.normalFull(formatNumber(normal.limit))}{" "}
              <Link to="/user-settings/pricing">{th.savedSearch.seePlans}</Link>
            </p>
          )}
          {room.full && (
            <p className="muted small" data-testid="overnight-full">
              {room.limit === 0 ? th.savedSearch.overnightNone : th.savedSearch.overnightFull(formatNumber(room.limit))}{" "}
              <Link to="/user-settings/pricing">{th.savedSearch.seePlans}</Link>
            </p>
          )}
        </div>
      )}
      {items.length === 0 ? (
        <p className="muted">
          {list.isPending ? "…" : t.noCriteria} <Link to="/search">{t.goSearch}</Link>
        </p>
      ) : (
        <ul className="criteria-list">
          {items.map((c) => (
            <li key={c.criteriaId} className="settings-card" data-testid="criteria-row" data-type={c.searchType}>
              <p className="criteria-name">
                {c.name || t.unnamed}{" "}
                <span className="chip" data-testid="criteria-type">
                  {c.searchType === "overnight" ? t.overnight : t.normal}
                </span>
              </p>
              <CriteriaSummary criteria={c.criteria} />
              <p className="muted">
                {c.createdAt && t.savedOn(formatThaiDate(timestampDate(c.createdAt)))}
                {c.lastRunAt && ` · ${t.lastRun(formatThaiDate(timestampDate(c.lastRunAt)), formatNumber(Number(c.lastMatchCount)))}`}
              </p>
              <div className="settings-row">
                <button type="button" className="btn btn-ghost btn-sm" onClick={() => run.mutate(c.criteriaId)} data-testid="criteria-run">
                  {t.run}
                </button>
                <Link to={editHref(c.criteriaId)} className="btn btn-ghost btn-sm" data-testid="criteria-edit">
                  {th.savedSearch.edit}
                </Link>
                <button type="button" className="btn btn-ghost btn-sm" onClick={() => window.confirm(t.confirmDelete) && del.mutate(c.criteriaId)} data-testid="criteria-delete">
                  {t.delete}
                </button>
              </div>
              {ran?.id === c.criteriaId && (
                <div data-testid="criteria-results">
                  <p>{t.found(formatNumber(ran.total))}</p>
                  <ul>
                    {ran.rows.map((r) => (
                      <li key={r.id}>
                        <Link to={`/project-details/${r.id}`}>{r.name || r.id}</Link>
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
