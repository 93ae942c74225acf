import { useState } from "react";
import { IconUser } from "./icons";

type Props = { name?: string; username?: string; pictureUrl?: string; size?: number };

/** Initials from the name, else the username; Thai names give their first letter. */
export function initialsOf(name?: string, username?: string): string {
  const source = (name ?? "").trim() || (username ?? "").trim();
  if (!source) return "";
  const parts = source.split(/\s+/).filter(Boolean);
  const first = (s: string) => Array.from(s.replace(/^[\u0E40-\u0E44]/, ""))[0] ?? Array.from(s)[0] ?? "";
  const letters = parts.length > 1 ? first(parts[0]) + first(parts[parts.length - 1]) : first(parts[0]);
  return letters.toUpperCase();
}

/** docs/product.md#header-and-footer: the picture, else initials from name or username, else a generic icon. */
export function Avatar({ name, username, pictureUrl, size = 36 }: Props) {
  const [broken, setBroken] = useState(false);
  const initials = initialsOf(name, username);
  const style = { width: size, height: size, fontSize: size * 0.4 };
  if (pictureUrl && !broken) {
    return (
      <img className="avatar" src={pictureUrl} alt="" style={style} onError={() => setBroken(true)} referrerPolicy="no-referrer" data-testid="avatar-img" />
    );
  }
  if (initials) {
    return (
      <span className="avatar avatar-initials" style={style} aria-hidden="true" data-testid="avatar-initials">
        {initials}
      </span>
    );
  }
  return (
    <span className="avatar avatar-icon" style={style} aria-hidden="true" data-testid="avatar-icon">
      <IconUser size={size * 0.55} />
    </span>
  );
}
