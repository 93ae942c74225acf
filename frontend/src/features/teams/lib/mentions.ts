/**
 * @mentions in a comment: the word being typed at the caret, the members it
 * may mean, and the text with the chosen username put in. A username is what
 * the server matches (a-z, 0-9, . _ -).
 */
export type MentionQuery = { start: number; end: number; query: string };

const USERNAME_CHAR = /[A-Za-z0-9._-]/;

/** The "@word" the caret is in or right after, or null (an @ inside an e-mail address is no mention). */
export function mentionAt(text: string, caret: number): MentionQuery | null {
  let i = caret;
  while (i > 0 && USERNAME_CHAR.test(text[i - 1])) i--;
  if (i === 0 || text[i - 1] !== "@") return null;
  const at = i - 1;
  if (at > 0 && !/\s|[([{"'“‘]/.test(text[at - 1])) return null;
  let end = caret;
  while (end < text.length && USERNAME_CHAR.test(text[end])) end++;
  return { start: at, end, query: text.slice(i, caret) };
}

export type Mentionable = { username: string; name: string };

/** Members whose username or name starts with (or, after those, contains) the query; at most `limit`. */
export function mentionCandidates<M extends Mentionable>(members: readonly M[], query: string, limit = 6): M[] {
  const q = query.toLowerCase();
  const score = (m: M) => {
    const u = m.username.toLowerCase();
    const n = m.name.toLowerCase();
    if (u.startsWith(q)) return 0;
    if (n.startsWith(q) || n.split(/\s+/).some((w) => w.startsWith(q))) return 1;
    if (u.includes(q) || n.includes(q)) return 2;
    return -1;
  };
  return members
    .map((m) => ({ m, s: score(m) }))
    .filter((x) => x.s >= 0)
    .sort((a, b) => a.s - b.s || a.m.username.localeCompare(b.m.username))
    .slice(0, limit)
    .map((x) => x.m);
}

/** The text with the mention at q replaced by "@username " and where the caret goes. */
export function insertMention(text: string, q: MentionQuery, username: string): { text: string; caret: number } {
  const before = text.slice(0, q.start);
  const after = text.slice(q.end);
  const ins = `@${username}${after.startsWith(" ") ? "" : " "}`;
  return { text: before + ins + after, caret: before.length + ins.length + (after.startsWith(" ") ? 1 : 0) };
}

/** The usernames a text mentions (as the server reads them), lower-cased, once each. */
export function mentionedUsernames(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(^|[\s([{"'“‘])@([A-Za-z0-9._-]+)/g)) out.add(m[2].replace(/[.]+$/, "").toLowerCase());
  return [...out];
}
