import { useLocation } from "react-router";
import { safeRedirect } from "../api/auth-api";

/** Where to go after sign-in: the page the guard interrupted, else home. */
export function useRedirectTarget(): string {
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from;
  return safeRedirect(from, "/");
}
