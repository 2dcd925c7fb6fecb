/**
 * Verification codes and links in a message, for tests and agents that came for exactly these. Linear-time
 * regular expressions only: mail text is attacker-controlled.
 */
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

/** Codes in subject and text, most likely first, without duplicates. */
export function extractCodes(subject: string, text: string): string[] {
  const all = [...candidates(subject, 0).map((c) => ({ ...c, score: c.score + 1 })), ...candidates(text.slice(0, 200_000), 1_000_000)];
  all.sort((a, b) => b.score - a.score || a.index - b.index);
  return [...new Set(all.map((c) => c.code))].slice(0, 10);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };
const decodeEntities = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });

const trimUrl = (url: string) => url.replace(/[)\].,;:!?'">]+$/, '');

/** http(s) links of the HTML (href, in order) then of the text, de-duplicated. */
export function extractLinks(html: string, text: string): string[] {
  const links: string[] = [];
  for (const match of html.slice(0, 2_000_000).matchAll(/\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    const url = decodeEntities((match[1] ?? match[2] ?? match[3] ?? '').trim());
    if (/^https?:\/\//i.test(url)) links.push(url);
  }
  for (const match of text.slice(0, 2_000_000).matchAll(/https?:\/\/[^\s<>"'`]+/gi)) links.push(trimUrl(match[0]));
  return [...new Set(links)];
}
