/**
 * `code()` and `link()`: the one verification code, or the one link, a test came for. A test that takes "the first
 * code" passes on the wrong one the day a mail carries two; these succeed only when exactly one candidate matches,
 * and otherwise throw TempMailMatchError listing every candidate with where it was found, so the failure explains
 * itself. They read the message's `verification` (every full message has it): no request is made.
 */
import type { ExtractSource, FoundCode, FoundLink, Message } from './types.js';

/** A string matches when the value contains it, in any case; a RegExp when it matches the value. */
export type TextMatcher = string | RegExp;

export interface CodeOptions {
  /** Only codes that match (e.g. /^\d{6}$/). */
  match?: TextMatcher;
  /** Only codes found there (one source or several). */
  source?: ExtractSource | ExtractSource[];
}

export interface LinkOptions {
  /** Only links whose text matches: the anchor's visible text in HTML, the words before the link on its line in text. */
  text?: TextMatcher;
  /** Only links whose URL matches. */
  url?: TextMatcher;
  /** Only links found there. */
  source?: 'html' | 'text' | ('html' | 'text')[];
}

/** None or more than one candidate matched: `candidates` lists those that did, or every one when none did. */
export class TempMailMatchError extends Error {
  constructor(
    message: string,
    readonly candidates: (FoundCode | FoundLink)[],
  ) {
    super(message);
    this.name = 'TempMailMatchError';
  }
}

type Extracted = Pick<Message, 'id' | 'subject' | 'verification'>;

/** Candidates listed in an error at most; the error's `candidates` has them all. */
const LISTED = 20;

function matches(matcher: TextMatcher | undefined, value: string): boolean {
  if (matcher === undefined) return true;
  if (typeof matcher === 'string') return value.replace(/\s+/g, ' ').toLowerCase().includes(matcher.replace(/\s+/g, ' ').toLowerCase());
  matcher.lastIndex = 0; // a /g or /y pattern keeps its position between tests
  return matcher.test(value);
}

const inSources = <S extends string>(wanted: S | S[] | undefined, source: S) => wanted === undefined || (Array.isArray(wanted) ? wanted : [wanted]).includes(source);

const describeMatcher = (what: string, matcher: TextMatcher | undefined) =>
  matcher === undefined ? [] : [`${what} ${typeof matcher === 'string' ? `containing ${JSON.stringify(matcher)}` : `matching ${String(matcher)}`}`];

/** The values of `entries` in order, each once, with the sources (and texts) it was found under. */
function grouped<T>(entries: T[], key: (e: T) => string, label: (e: T) => string): { key: string; labels: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const entry of entries) {
    const labels = groups.get(key(entry)) ?? [];
    if (!labels.includes(label(entry))) labels.push(label(entry));
    groups.set(key(entry), labels);
  }
  return [...groups].map(([k, labels]) => ({ key: k, labels }));
}

function fail(kind: 'code' | 'link', message: Extracted, filters: string[], matched: { key: string; labels: string[] }[], all: { key: string; labels: string[] }[], candidates: (FoundCode | FoundLink)[]): never {
  const wanted = `exactly 1 ${kind}${filters.length ? ` (${filters.join(', ')})` : ''} in message ${message.id} (subject ${JSON.stringify(message.subject.slice(0, 80))})`;
  const shown = matched.length ? matched : all;
  const list = shown
    .slice(0, LISTED)
    .map((g) => `  ${g.key} (${g.labels.join('; ')})`)
    .join('\n');
  const more = shown.length > LISTED ? `\n  … and ${shown.length - LISTED} more` : '';
  const cut = kind === 'link' && message.verification.links_truncated ? ' (the message lists only part of its links: verification.links_truncated)' : '';
  const found = matched.length
    ? `found ${matched.length}:\n${list}${more}`
    : all.length
      ? `found none; the ${kind}s it has${cut}:\n${list}${more}`
      : `found none: the message has no ${kind}${cut}`;
  throw new TempMailMatchError(`expected ${wanted}, ${found}`, candidates);
}

/** The message's one verification code matching `options`; throws TempMailMatchError when there are none or several. */
export function code(message: Extracted, options: CodeOptions = {}): string {
  const all = message.verification.codes;
  const chosen = all.filter((c) => inSources(options.source, c.source) && matches(options.match, c.value));
  const group = (codes: FoundCode[]) => grouped(codes, (c) => c.value, (c) => c.source);
  const matched = group(chosen);
  if (matched.length === 1) return matched[0].key;
  const filters = [...(options.source ? [`from ${[options.source].flat().join(' or ')}`] : []), ...describeMatcher('', options.match).map((m) => m.trim())];
  return fail('code', message, filters, matched, group(all), chosen.length ? chosen : all);
}

/** The message's one link (its URL) matching `options`; throws TempMailMatchError when there are none or several. */
export function link(message: Extracted, options: LinkOptions = {}): string {
  const all = message.verification.links;
  const chosen = all.filter((l) => inSources(options.source, l.source) && matches(options.text, l.text) && matches(options.url, l.url));
  const group = (links: FoundLink[]) => grouped(links, (l) => l.url, (l) => `${l.source}: ${JSON.stringify(l.text)}`);
  const matched = group(chosen);
  if (matched.length === 1) return matched[0].key;
  const filters = [...(options.source ? [`from ${[options.source].flat().join(' or ')}`] : []), ...describeMatcher('text', options.text), ...describeMatcher('url', options.url)];
  return fail('link', message, filters, matched, group(all), chosen.length ? chosen : all);
}
