import type { ReactNode } from "react";
import { th } from "@/i18n/th";
import { IconCheck, IconRadar } from "@/components/ui/icons";

/** The two-column auth frame: the form, and a short reason to sign up. */
export function AuthCard({ title, lead, children, icon }: { title: string; lead?: ReactNode; children: ReactNode; icon?: ReactNode }) {
  return (
    <div className="auth-page">
      <div className="auth-card">
        <section className="auth-main">
          {icon && <div className="auth-icon">{icon}</div>}
          <h1>{title}</h1>
          {lead && <p className="auth-lead">{lead}</p>}
          {children}
        </section>
        <aside className="auth-aside" aria-hidden="true">
          <div className="auth-aside-radar">
            <IconRadar size={56} />
          </div>
          <h2>{th.auth.sidePanelTitle}</h2>
          <ul>
            {th.auth.sidePanelPoints.map((p) => (
              <li key={p}>
                <IconCheck size={18} />
                {p}
              </li>
            ))}
          </ul>
        </aside>
      </div>
    </div>
  );
}
