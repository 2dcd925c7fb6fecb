/**
 * What "a message matches" means, stated once: the message list's `q` / `from` / `subject` filters and the wait
 * endpoint's `from` / `subject` use these rules, and both store adapters search the same folded fields.
 * Matching is a case-insensitive substring test (JavaScript's toLowerCase on both sides), not a word search: a
 * test looks for "482913" or "acme.example", which a tokenising full-text index would not find inside a word.
 */

/** A filter whose terms are already folded (lower case); absent terms match everything. */
export interface MessageFilter {
  /** In subject, sender ("name <address>") or text. */
  q?: string;
  /** In the sender, "name <address>". */
  from?: string;
  subject?: string;
}

export const fold = (text: string): string => text.toLowerCase();

/** The sender as `from` filters see it, so that either the name or the address can be searched. */
export const senderText = (m: { from: string; from_name: string | null }): string => `${m.from_name ?? ''} <${m.from}>`;

/** The folded filter of a query, or undefined when it filters nothing (empty terms are ignored). */
export function messageFilter(query: { q?: string; from?: string; subject?: string }): MessageFilter | undefined {
  const filter: MessageFilter = {};
  for (const name of ['q', 'from', 'subject'] as const) {
    const term = query[name];
    if (term !== undefined && term !== '') filter[name] = fold(term);
  }
  return Object.keys(filter).length ? filter : undefined;
}

/** The folded fields a filter is tested against; stores may keep them beside the message. */
export interface SearchFields {
  subject: string;
  sender: string;
  text: string;
}

/** `text` is searched where the store holds it inline (bodies up to INLINE_BODY_BYTES; see limits.ts). */
export const searchFields = (m: { from: string; from_name: string | null; subject: string; text?: string }): SearchFields => ({
  subject: fold(m.subject),
  sender: fold(senderText(m)),
  text: fold(m.text ?? ''),
});

export function matches(fields: SearchFields, filter: MessageFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.from !== undefined && !fields.sender.includes(filter.from)) return false;
  if (filter.subject !== undefined && !fields.subject.includes(filter.subject)) return false;
  if (filter.q !== undefined && !(fields.subject.includes(filter.q) || fields.sender.includes(filter.q) || fields.text.includes(filter.q))) return false;
  return true;
}
