import { useEffect, useId, useRef, useState } from "react";
import { Link } from "react-router";
import { th } from "@/i18n/th";
import { toast } from "@/stores/toast-store";
import { useAddToPipeline, useMyTeams } from "../api/teams-api";
import { canWrite } from "../lib/roles";
import "../add-to-pipeline.css";

const t = th.teams;

/**
 * "Add to team pipeline" on a search row and on a project's page: with one
 * team the project goes straight into its triage; with several, a short
 * menu asks which. Shown only to members who may write a team's pipeline.
 */
export function AddToPipelineButton({ projectId, compact = false }: { projectId: string; compact?: boolean }) {
  const id = useId();
  const teams = useMyTeams();
  const add = useAddToPipeline();
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<{ teamId: string } | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  const writable = (teams.data ?? []).filter((x) => canWrite(x.role) && !x.readOnly);

  useEffect(() => {
    if (!open) return;
    const onDoc = (e: MouseEvent) => !ref.current?.contains(e.target as Node) && setOpen(false);
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    document.addEventListener("mousedown", onDoc);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDoc);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  if (writable.length === 0) return null;
  if (done)
    return (
      <Link to={`/pipeline?team=${encodeURIComponent(done.teamId)}&item=${encodeURIComponent(projectId)}`} className="btn btn-ghost btn-sm add-pipeline" data-testid="pipeline-open">
        ✓ {t.open}
      </Link>
    );
  const addTo = (teamId: string, name: string) => {
    setOpen(false);
    add.mutate(
      { teamId, projectId },
      {
        onSuccess: (res) => {
          toast.success(res.created ? t.added(name) : `${t.alreadyIn}: ${name}`);
          setDone({ teamId });
        },
      },
    );
  };
  return (
    <div className="add-pipeline-wrap" ref={ref}>
      <button
        type="button"
        className="btn btn-secondary btn-sm add-pipeline"
        aria-haspopup={writable.length > 1 ? "menu" : undefined}
        aria-expanded={writable.length > 1 ? open : undefined}
        aria-controls={writable.length > 1 ? `${id}-menu` : undefined}
        aria-busy={add.isPending || undefined}
        disabled={add.isPending}
        onClick={() => (writable.length === 1 ? addTo(writable[0].id, writable[0].name) : setOpen((o) => !o))}
        data-testid="add-to-pipeline"
        title={t.add}
      >
        + {compact ? t.addShort : t.add}
      </button>
      {open && (
        <ul id={`${id}-menu`} role="menu" className="add-pipeline-menu card" aria-label={t.addTitle}>
          {writable.map((x) => (
            <li key={x.id} role="none">
              <button type="button" role="menuitem" onClick={() => addTo(x.id, x.name)} data-testid="add-to-team">
                {t.addTo(x.name)}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
