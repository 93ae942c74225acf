import { Link } from "react-router";
import { th } from "@/i18n/th";
import { IconFlag } from "@/components/ui/icons";

const t = th.teams;

/** Teams are in the pro and enterprise plans: what the plans give, and the way to them. */
export function UpgradePrompt({ message }: { message?: string }) {
  return (
    <section className="card team-upgrade" data-testid="team-upgrade" aria-labelledby="team-upgrade-title">
      <span className="state-icon" aria-hidden="true">
        <IconFlag size={24} />
      </span>
      <div>
        <h2 id="team-upgrade-title">{t.upgradeTitle}</h2>
        {message && <p>{message}</p>}
        <p className="muted">{t.upgradeLead}</p>
        <Link to="/user-settings/pricing" className="btn btn-primary btn-md" data-testid="team-upgrade-link">
          {t.upgrade}
        </Link>
      </div>
    </section>
  );
}
