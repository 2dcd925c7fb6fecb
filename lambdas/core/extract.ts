/**
 * Verification codes and links in a message, for tests and agents that came for exactly these. Linear-time
 * regular expressions only: mail text is attacker-controlled.
 */
import { MESSAGE_CAPS } from './limits';

const CUE = /(code|verif|otp|pin\b|passcode|one[- ]time|token|security|confirm|login|sign[- ]?in|2fa|mfa|bestätigung|código|codigo|vérification|verification|код|验证码|認証|確認|コード|인증)/i;
const NOT_A_CODE_BEFORE = /(order|invoice|ticket|tracking|account|phone|tel|fax|ref|reference|no\.|number|#|\$|€|£|usd|eur)\s*[:#]?\s*$/i;

interface Candidate {
  code: string;
  score: number;
  index: number;
}

/**
 * Digits (4–8, optionally split once by a space or dash), or 6–10 letters and digits with at least one digit.
 * A letter may touch the code (HTML made text glues table cells: "code905 331"); a digit or URL character may not.
 * The lookaheads look no further than a code is long (11 characters): unbounded, each position of a long run of
 * capitals scanned the rest of the run, and 40 KB of "AAAA…" held the thread for 2 s (quadratic).
 */
export const CODE = /(?<![\d_@./:=?&%-])(\d{3,4}[ -]\d{3,4}|\d{4,8}|(?=[A-Z0-9-]{0,10}\d)(?=[A-Z0-9-]{0,10}[A-Z])[A-Z0-9]{2,5}-?[A-Z0-9]{2,5})(?![\w@/%-]|\.\d|:\d)/y;
/** How far before a digit a code can start: every form of CODE has a digit within its first 11 characters. */
const DIGIT_REACH = 10;

/**
 * The matches of CODE, as a global scan would find them, trying only the positions where a match can start: at most
 * DIGIT_REACH characters before a digit. Text without digits costs one scan for a digit, and lines like "1XXXX…" a
 * few tries each, not one try per character (mail bodies are mostly letters).
 */
export function* codeMatches(source: string): Generator<RegExpExecArray> {
  const digits = /\d/g;
  let from = 0; // positions before this were tried, or are inside a match
  for (let digit = digits.exec(source); digit; digit = digits.exec(source)) {
    for (let at = Math.max(from, digit.index - DIGIT_REACH); at <= digit.index; at = Math.max(at + 1, from)) {
      CODE.lastIndex = at;
      const match = CODE.exec(source);
      if (match) {
        from = match.index + match[0].length;
        yield match;
      }
    }
    from = Math.max(from, digit.index + 1);
    digits.lastIndex = Math.max(digits.lastIndex, from);
  }
}

function candidates(source: string, offset: number): Candidate[] {
  const found: Candidate[] = [];
  for (const match of codeMatches(source)) {
    const raw = match[0];
    const index = match.index ?? 0;
    const code = /^\d/.test(raw) && /[ -]/.test(raw) ? raw.replace(/[ -]/g, '') : raw;
    if (/^\d+$/.test(code) && (code.length < 4 || code.length > 8)) continue;
    if (/^(19|20)\d{2}$/.test(code)) continue; // a year
    const before = source.slice(Math.max(0, index - 40), index);
    if (NOT_A_CODE_BEFORE.test(before)) continue;
    const around = source.slice(Math.max(0, index - 80), index + raw.length + 40);
    let score = 0;
    if (CUE.test(around)) score += 10;
    if (/^\d{6}$/.test(code)) score += 3;
    else if (/^\d+$/.test(code)) score += 2;
    if (/[:：]\s*$/.test(before) || /\bis\s*$/i.test(before)) score += 2;
    // Without a cue word nearby only a 6–8 digit number passes: short numbers and words are too often something else.
    if (!CUE.test(around) && !/^\d{6,8}$/.test(code)) continue;
    found.push({ code, score, index: offset + index });
  }
  return found;
}

/** How much of a text (and of an HTML document's visible text) is looked at for codes. */
const CODE_SCAN_CHARS = 200_000;
/** How much of an HTML document, and of a text, is looked at for links. */
const LINK_SCAN_CHARS = 2_000_000;
/** The most of a text or an HTML document extraction reads (a held body's `head`, core/ports.ts HeldText). */
export const EXTRACT_SCAN_CHARS = Math.max(CODE_SCAN_CHARS, LINK_SCAN_CHARS);
/** Codes listed at most (`codes`), and code candidates (`verification.codes`). */
const MAX_CODES = 10;
const MAX_CODE_CANDIDATES = 30;

/** Where a code or link was found: the subject, the text part (derived from the HTML when the mail has none), the HTML. */
export type ExtractSource = 'subject' | 'text' | 'html';
export interface FoundCode {
  value: string;
  source: ExtractSource;
}

/** Candidates of each source, most likely first (a subject's a little ahead), then in order of appearance. */
function rankedCodes(sources: [ExtractSource, string][]): (Candidate & { source: ExtractSource })[] {
  const all = sources.flatMap(([source, value], i) =>
    candidates(source === 'subject' ? value : value.slice(0, CODE_SCAN_CHARS), i * 1_000_000).map((c) => ({ ...c, source, score: c.score + (source === 'subject' ? 1 : 0) })),
  );
  return all.sort((a, b) => b.score - a.score || a.index - b.index);
}

/** Codes in subject and text, most likely first, without duplicates. */
export function extractCodes(subject: string, text: string): string[] {
  return [...new Set(rankedCodes([['subject', subject], ['text', text]]).map((c) => c.code))].slice(0, MAX_CODES);
}

const ENTITIES: Record<string, string> = { nbsp: '\u00a0', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };
const decodeEntities = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });

const trimUrl = (url: string) => url.replace(/[)\].,;:!?'">]+$/, '');

/** A link's text is cut to this many characters; it is looked for within this much of the HTML after its tag. */
export const LINK_TEXT_CHARS = 200;
const ANCHOR_WINDOW_CHARS = 2_000;

export interface FoundLink {
  url: string;
  /**
   * HTML: the anchor's visible text (an image's alt text when it has none), '' for an href outside an anchor. Text:
   * the words before the URL on its line (after the previous URL on it), without a trailing colon or bracket.
   */
  text: string;
  source: 'html' | 'text';
}

/** Tags stripped, entities decoded, white space collapsed: text as a reader sees it. Linear ([^<>] never backtracks far). */
const readable = (html: string) =>
  decodeEntities(html.replace(/<[^<>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The first index of `needle` at or after `from`, remembered: callers ask with growing `from`, so each part of the
 * document is searched once however many links point there (25,000 hrefs in a tag that never closes stay linear).
 */
function forwardFinder(haystack: string, needle: string | RegExp) {
  let found = -2;
  return (from: number) => {
    if (found === -1 || found >= from) return found;
    if (typeof needle === 'string') found = haystack.indexOf(needle, from);
    else {
      needle.lastIndex = from;
      found = needle.exec(haystack)?.index ?? -1;
    }
    return found;
  };
}

/** `value` without the characters of `chars` at its start and its end (a loop: a regex like /[…]+$/ is quadratic). */
function trimOf(value: string, chars: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && chars.includes(value[start])) start++;
  while (end > start && chars.includes(value[end - 1])) end--;
  return value.slice(start, end);
}

const cut = (value: string) => (value.length > LINK_TEXT_CHARS ? value.slice(0, LINK_TEXT_CHARS) : value);

/**
 * http(s) links of the HTML (each href, in order) with their anchors' text. An anchor's text is read up to its end
 * tag, the next anchor or ANCHOR_WINDOW_CHARS, whichever comes first: the windows never overlap, so the cost stays
 * linear in the document.
 */
function* htmlLinks(html: string): Generator<FoundLink> {
  const doc = html.slice(0, LINK_SCAN_CHARS);
  const lower = doc.toLowerCase();
  const tagStart = forwardFinder(doc, '<');
  const tagEnd = forwardFinder(doc, '>');
  const anchorEnd = forwardFinder(lower, '</a');
  const nextAnchor = forwardFinder(lower, /<a[\s>]/g);
  let lastLt = -1;
  for (const match of doc.matchAll(/\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    const url = decodeEntities((match[1] ?? match[2] ?? match[3] ?? '').trim());
    if (!/^https?:\/\//i.test(url)) continue;
    // The tag this href is in: the last '<' before it (found moving forward only).
    for (let next = tagStart(lastLt + 1); next !== -1 && next < match.index; next = tagStart(lastLt + 1)) lastLt = next;
    let text = '';
    if (lastLt >= 0 && /^<a\s/i.test(doc.slice(lastLt, lastLt + 3))) {
      const open = tagEnd(match.index + match[0].length);
      if (open !== -1) {
        const ends = [anchorEnd(open), nextAnchor(open), open + 1 + ANCHOR_WINDOW_CHARS].filter((i) => i >= 0);
        const inner = doc.slice(open + 1, Math.min(...ends));
        text = readable(inner) || decodeEntities(/\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(inner)?.slice(1).find((v) => v !== undefined) ?? '').trim();
      }
    }
    yield { url, text: cut(text), source: 'html' };
  }
}

/**
 * An http(s) URL in running text: it ends at white space, a quote, an angle bracket or a square bracket. html-to-text
 * writes an image as `[src]` right before a link's `Text [href]`, and RFC 3986 allows brackets only around an IPv6
 * host, which is kept (http://[::1]:8080/). Used by the links of a text and by the snapshot's URL rules.
 */
export const TEXT_URL = /https?:\/\/(?:\[[0-9a-f:.]+\][^\s<>"'`[\]]*|[^\s<>"'`[\]]+)/gi;

/** http(s) links of a text, each with the words before it on its line. */
function* textLinks(text: string): Generator<FoundLink> {
  const doc = text.slice(0, LINK_SCAN_CHARS);
  const newline = forwardFinder(doc, '\n');
  let lineStart = 0;
  let previousEnd = 0;
  for (const match of doc.matchAll(TEXT_URL)) {
    for (let next = newline(lineStart); next !== -1 && next < match.index; next = newline(lineStart)) lineStart = next + 1;
    const label = trimOf(doc.slice(Math.max(lineStart, previousEnd, match.index - LINK_TEXT_CHARS * 2), match.index), ' \t\r:：([<>|-–—,;.)]').replace(/\s+/g, ' ');
    previousEnd = match.index + match[0].length;
    yield { url: trimUrl(match[0]), text: label.length > LINK_TEXT_CHARS ? label.slice(-LINK_TEXT_CHARS) : label, source: 'text' };
  }
}

/** http(s) links of the HTML (href, in order) then of the text, de-duplicated. */
export function extractLinks(html: string, text: string): string[] {
  return [...new Set([...htmlLinks(html), ...textLinks(text)].map((l) => l.url))];
}

/** What a message's `verification` lists: every candidate with where it was found, for tests that must pick one. */
export interface Verification {
  /** Most likely first; a code found in two places is listed once per place. */
  codes: FoundCode[];
  /** In order (HTML, then text); one entry per distinct url, text and source; at most MESSAGE_CAPS.links. */
  links: FoundLink[];
  /** Links were left out: past MESSAGE_CAPS.links, or longer than MESSAGE_CAPS.linkChars. */
  links_truncated: boolean;
}

/**
 * Codes and links with their sources: codes in the subject, the text and the HTML's visible text; links in the HTML
 * (with their anchor text) and the text. Linear in the mail, as extractCodes and extractLinks.
 */
export function extractVerification(subject: string, text: string, html: string): Verification {
  const seenCodes = new Set<string>();
  const codes: FoundCode[] = [];
  for (const c of rankedCodes([['subject', subject], ['text', text], ['html', html ? visibleText(html.slice(0, LINK_SCAN_CHARS)) : '']])) {
    const key = `${c.source} ${c.code}`;
    if (seenCodes.has(key)) continue;
    seenCodes.add(key);
    codes.push({ value: c.code, source: c.source });
    if (codes.length === MAX_CODE_CANDIDATES) break;
  }
  const seenLinks = new Set<string>();
  const links: FoundLink[] = [];
  let truncated = false;
  for (const link of [htmlLinks(html), textLinks(text)].flatMap((found) => [...found])) {
    if (link.url.length > MESSAGE_CAPS.linkChars) {
      truncated = true;
      continue;
    }
    const key = JSON.stringify([link.url, link.text, link.source]);
    if (seenLinks.has(key)) continue;
    seenLinks.add(key);
    if (links.length === MESSAGE_CAPS.links) {
      truncated = true;
      break;
    }
    links.push(link);
  }
  return { codes, links, links_truncated: truncated };
}

/** The visible text of HTML: without its style and script elements and its tags. Linear in the document. */
export function visibleText(html: string): string {
  const lower = html.toLowerCase();
  const hidden = /<(style|script)\b/g;
  const parts: string[] = [];
  let at = 0;
  for (let open = hidden.exec(lower); open; open = hidden.exec(lower)) {
    parts.push(html.slice(at, open.index));
    const close = lower.indexOf(`</${open[1]}`, open.index);
    const end = close === -1 ? -1 : html.indexOf('>', close);
    at = end === -1 ? html.length : end + 1;
    hidden.lastIndex = at;
  }
  parts.push(html.slice(at));
  return readable(parts.join(' '));
}
