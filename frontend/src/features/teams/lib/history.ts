import { th } from "@/i18n/th";
import { formatIsoDateBE } from "@/lib/format";
import { formatSatangBaht, parseSatang } from "./money";
import { stageLabel } from "./stages";

const t = th.teams;

export type NameOf = (userId: string) => string;

/** Who made a change: a member's name, "you", a team API key, or a member who has left. */
export function actorName(userId: string, nameOf: NameOf, me: string): string {
  if (userId.startsWith("api-key:")) return th.teams.keysTitle;
  if (userId && userId === me) return t.you;
  return nameOf(userId) || t.someone;
}

/** The Thai label of a changed field ("item": the project added or removed). */
export function fieldLabel(field: string, to: string): string {
  if (field === "item") return to ? t.historyFields.created : t.historyFields.deleted;
  return t.historyFields[field] ?? field;
}

/** A field's value as the team reads it: stage names, B.E. dates, baht, names. */
export function fieldValue(field: string, v: string, nameOf: NameOf): string {
  if (!v) return t.historyEmptyValue;
  switch (field) {
    case "stage":
      return stageLabel(v);
    case "owner_user_id":
      return nameOf(v) || t.someone;
    case "due_date":
      return formatIsoDateBE(v);
    case "bid_price": {
      const s = parseSatang(v);
      return s === null ? v : formatSatangBaht(s);
    }
    default:
      return v.length > 120 ? `${v.slice(0, 120)}…` : v;
  }
}
