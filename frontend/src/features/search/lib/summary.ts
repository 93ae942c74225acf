import { th } from "@/i18n/th";
import { formatIsoDateBE, formatMoney } from "@/lib/format";
import { DROPDOWN_OF, type Criteria, type ListKey } from "./criteria";

export type SummaryLine = { label: string; value: string };
type Labels = Partial<Record<string, { value: string; label: string }[]>>;

const t = th.savedSearch;

/** The multi-select groups in the form's order, after keywords and ids. */
const GROUPS: ListKey[] = ["announceTypes", "methods", "categories", "statuses", "provinces", "ministries", "departments", "subDepartments", "strategies", "budgetYears"];

/**
 * A saved criteria in Thai, one line per criterion: keywords as typed,
 * codes as their dropdown labels (the code itself while the lists load or
 * when a code has left them), dates in the Buddhist era, budgets in baht.
 */
export function summarize(c: Criteria, lists?: Labels): SummaryLine[] {
  const out: SummaryLine[] = [];
  const add = (label: string, values: string[]) => values.length > 0 && out.push({ label, value: values.join(", ") });
  add(t.keywordsAny, c.or);
  add(t.keywordsAll, c.and);
  add(t.keywordsNot, c.not);
  add(t.projectIds, c.projectIds);
  for (const key of GROUPS) {
    const list = lists?.[DROPDOWN_OF[key] ?? ""] ?? [];
    add(th.search.groups[key], c[key].map((v) => list.find((o) => o.value === v)?.label ?? v));
  }
  const from = formatIsoDateBE(c.dateFrom);
  const to = formatIsoDateBE(c.dateTo);
  if (from || to) out.push({ label: t.announced, value: from && to ? t.range(from, to) : from ? t.from(from) : t.to(to) });
  const min = c.moneyMin !== null ? formatMoney(c.moneyMin) : "";
  const max = c.moneyMax !== null ? formatMoney(c.moneyMax) : "";
  if (min || max) out.push({ label: t.budget, value: min && max ? t.range(min, max) : min ? t.atLeast(min) : t.atMost(max) });
  return out;
}
