import type { ReactNode } from "react";
import { usePageTitle } from "@/hooks/use-page-title";
import { th } from "@/i18n/th";
import { IconRadar } from "./icons";

/** A route that exists but whose screen arrives in a later release. */
export function PlaceholderPage({ title, lead, children, soon = true }: { title: string; lead?: string; children?: ReactNode; soon?: boolean }) {
  usePageTitle(title);
  return (
    <div className="placeholder" data-testid="placeholder-page">
      <span className="placeholder-icon">
        <IconRadar size={32} />
      </span>
      <h1>{title}</h1>
      {lead && <p className="lead">{lead}</p>}
      {children}
      {soon && <p className="badge-soon">{th.common.comingSoon}</p>}
    </div>
  );
}
