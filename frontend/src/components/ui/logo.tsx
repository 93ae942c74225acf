import { Link } from "react-router";
import { PRODUCT, th } from "@/i18n/th";
import { IconRadar } from "./icons";

/** The mark and the name: static, so the loading skeleton (and index.html's shell) show it too. */
export function Brand() {
  return (
    <>
      <span className="logo-mark">
        <IconRadar size={22} />
      </span>
      <span className="logo-text">
        <strong>{PRODUCT}</strong>
        <small>{th.nav.tagline}</small>
      </span>
    </>
  );
}

export function Logo({ onClick }: { onClick?: () => void }) {
  return (
    <Link to="/" className="logo" onClick={onClick} aria-label={`${PRODUCT} – ${th.nav.home}`}>
      <Brand />
    </Link>
  );
}
