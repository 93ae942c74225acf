import { th } from "@/i18n/th";

/** A member's role in a team: owners and admins manage, members write the pipeline, viewers read. */
export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(s: string): s is Role {
  return (ROLES as readonly string[]).includes(s);
}

export function roleLabel(r: string): string {
  return isRole(r) ? th.teams.roles[r] : r;
}

/** Reads and writes the pipeline (items, comments). */
export function canWrite(r: string): boolean {
  return r === "owner" || r === "admin" || r === "member";
}

/** Invites, changes roles, removes members, manages API keys. */
export function canManage(r: string): boolean {
  return r === "owner" || r === "admin";
}

/** The roles an inviter may hand out: owners any, admins up to admin. */
export function assignableRoles(me: string): Role[] {
  if (me === "owner") return ["owner", "admin", "member", "viewer"];
  if (me === "admin") return ["admin", "member", "viewer"];
  return [];
}

/**
 * Whether `me` may change or remove a member holding `their` role (the
 * server decides; this keeps the buttons honest): owners anyone, admins
 * anyone but an owner, nobody else.
 */
export function canManageMember(me: string, their: string): boolean {
  if (me === "owner") return true;
  if (me === "admin") return their !== "owner";
  return false;
}
