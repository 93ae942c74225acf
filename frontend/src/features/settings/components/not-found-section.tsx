import { Link } from "react-router";
import { th } from "@/i18n/th";

/** An unknown settings path. */
export function NotFoundSection() {
  return (
    <section className="settings-section">
      <h1>{th.pages.settingsTitle}</h1>
      <Link to="/user-settings/user-info">{th.pages.settings["user-info"]}</Link>
    </section>
  );
}
