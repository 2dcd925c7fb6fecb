/**
 * A message normalised for snapshot tests (GET …/messages/{id}/snapshot): what changes from one run to the next —
 * codes, dates, message ids, the inbox's own address, signed or token-bearing URLs, tracking parameters, MIME
 * boundaries — becomes a stable placeholder, so that `expect(snapshot).toMatchSnapshot()` fails only when the mail
 * itself changed. The rules are docs/API.md's ("Snapshots"); they apply in this order, to the subject, then the
 * text, then the HTML, and a value gets one placeholder wherever it appears (the same code in text and HTML is
 * <CODE-1> in both), numbered by first appearance. Pure and linear: mail is written by strangers.
 */
import { extractVerification, TEXT_URL } from './extract';

export interface SnapshotInput {
  subject: string;
  text: string;
  html: string;
  /** The inbox's address: its username is random unless the test chose it. */
  inboxEmail: string;
  /** Message-ID and In-Reply-To of the mail, found bare in bodies too. */
  messageIds: string[];
  /** The boundary parameters of the mail's Content-Type header fields. */
  boundaries: string[];
}

export type SnapshotFields = Pick<SnapshotInput, 'subject' | 'text' | 'html'>;

/** Query parameters dropped from every URL: analytics and click tracking, not part of where a link goes. */
export const TRACKING_PARAMETER = /^(utm_[a-z_]+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|igshid|mc_cid|mc_eid|_hsenc|_hsmi|mkt_tok|trk|trkid|oly_anon_id|oly_enc_id|vero_id|_ga|_gl|ref_src)$/i;
/** Query parameters whose value is a secret, a signature or a one-time value, whatever it looks like. */
export const SECRET_PARAMETER =
  /^(token|t|tk|key|api_key|apikey|sig|signature|code|otp|auth|hash|h|nonce|state|session|sid|jwt|access_token|id_token|refresh_token|reset_token|confirmation_token|verification_token|ticket|expires|exp|e|ts|timestamp|x-amz-[a-z-]+|x-goog-[a-z-]+|awsaccesskeyid|policy|key-pair-id|upn)$/i;

/** A value that looks generated: 16 or more URL-safe characters with a letter and a digit, a UUID, or a JWT. */
const GENERATED = /^(?=[^/]*\d)(?=[^/]*[a-z])[a-z0-9_.~+=%-]{16,}$/i;
const MESSAGE_ID = /(<|&lt;)[^<>\s@&;]{1,200}@[^<>\s&;]{1,200}(>|&gt;)/g;
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\\.?';
const DAY_NAME = '(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}\\.?,?\\s';
const TIME = '\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:\\s?[ap]\\.?m\\.?)?(?:\\s?(?:z|utc|gmt|[+-]\\d{2}:?\\d{2}|\\([a-z]{2,5}\\)|[a-z]{1,3}[sd]t))?';
const DATES = new RegExp(
  [
    // 2026-11-26T16:02:33.123Z, 2026-11-26 16:02, 2026-11-26
    `\\d{4}-\\d{2}-\\d{2}(?:[t\\s]${TIME})?`,
    // Thu, 26 Nov 2026 16:02:33 +0000 (RFC 5322), 26 November 2026, 26. November 2026
    `(?:${DAY_NAME})?\\d{1,2}\\.?\\s${MONTH}\\s\\d{4}(?:,?\\s(?:at\\s)?${TIME})?`,
    // Thursday, November 26, 2026 at 4:02 PM, Nov 26 2026
    `(?:${DAY_NAME})?${MONTH}\\s\\d{1,2}(?:st|nd|rd|th)?,?\\s\\d{4}(?:,?\\s(?:at\\s)?${TIME})?`,
    // 11/26/2026, 26.11.2026, 26/11/26 16:02
    `\\d{1,2}[./]\\d{1,2}[./](?:\\d{4}|\\d{2})(?:,?\\s${TIME})?`,
  ]
    .map((p) => `(?<![\\w.:/-])${p}(?![\\w/-])`)
    .join('|'),
  'gi',
);
const TIMES = new RegExp(`(?<![\\w.:/-])${TIME}(?![\\w/-])`, 'gi');

/** The placeholders of one snapshot: each value its own, numbered per kind in order of first appearance. */
class Placeholders {
  private readonly byValue = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  of(kind: string, value: string): string {
    const key = `${kind} ${value}`;
    let placeholder = this.byValue.get(key);
    if (!placeholder) {
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      placeholder = `<${kind}-${n}>`;
      this.byValue.set(key, placeholder);
    }
    return placeholder;
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The forms a code is written in: as found, and a numeric one split once by a space or dash ("392 118"). */
function codePattern(codes: string[]): RegExp | null {
  const forms = new Set<string>();
  for (const code of codes) {
    forms.add(escapeRegExp(code));
    if (/^\d{6,8}$/.test(code)) for (let i = 3; i <= code.length - 3; i++) forms.add(`${code.slice(0, i)}[ -]${code.slice(i)}`);
  }
  if (forms.size === 0) return null;
  // Longest first: "AB12-CD34" before "AB12".
  return new RegExp(`(?<![\\w-])(?:${[...forms].sort((a, b) => b.length - a.length).join('|')})(?![\\w-])`, 'g');
}

/** One URL normalised: tracking parameters dropped, secrets and generated values (path, query, fragment) replaced. */
function normaliseUrl(url: string, names: Placeholders, codes: Set<string>, inbox: string): string {
  const trail = /[)\].,;:!?'">]+$/.exec(url)?.[0] ?? '';
  const bare = url.slice(0, url.length - trail.length);
  const [beforeFragment, fragment] = splitOnce(bare, '#');
  const [base, query] = splitOnce(beforeFragment, '?');
  const value = (v: string, secret: boolean) => {
    const decoded = safeDecode(v);
    if (codes.has(decoded)) return names.of('CODE', decoded);
    if (decoded.toLowerCase() === inbox) return '<INBOX-ADDRESS>';
    if (v && (secret || GENERATED.test(v) || /^eyJ/.test(v))) return names.of('TOKEN', v);
    return v;
  };
  const path = base.replace(/^(https?:\/\/[^/]*)(.*)$/i, (_, origin: string, rest: string) => origin + rest.split('/').map((segment) => value(segment, false)).join('/'));
  let out = path;
  if (query !== undefined) {
    const separator = query.includes('&amp;') ? '&amp;' : '&';
    const kept = query
      .split(/&amp;|&/)
      .filter((pair) => pair !== '' && !TRACKING_PARAMETER.test(safeDecode(pair.split('=')[0])))
      .map((pair) => {
        const [name, v] = splitOnce(pair, '=');
        return v === undefined ? pair : `${name}=${value(v, SECRET_PARAMETER.test(safeDecode(name)))}`;
      });
    if (kept.length) out += `?${kept.join(separator)}`;
  }
  if (fragment !== undefined) out += `#${value(fragment, false)}`;
  return out + trail;
}

function splitOnce(s: string, separator: string): [string, string | undefined] {
  const at = s.indexOf(separator);
  return at === -1 ? [s, undefined] : [s.slice(0, at), s.slice(at + separator.length)];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** The message's subject, text and HTML with every rule applied. */
export function snapshotOf(input: SnapshotInput): SnapshotFields {
  const names = new Placeholders();
  const found = extractVerification(input.subject, input.text, input.html);
  const codes = new Set(found.codes.map((c) => c.value));
  const codeForms = codePattern([...codes]);
  const inbox = input.inboxEmail.toLowerCase();
  const [local, domain] = splitOnce(inbox, '@');
  const inboxPattern = domain === undefined ? null : new RegExp(`(?<![\\w.+-])${escapeRegExp(local)}(?:\\+[^\\s@<>"']{0,64})?(?:@|%40)${escapeRegExp(domain)}(?![\\w-])`, 'gi');
  const boundaries = input.boundaries.filter((b) => b.length >= 8);
  const bareIds = input.messageIds.map((id) => id.replace(/^<|>$/g, '')).filter((id) => id.length >= 8);
  const rules: ((s: string) => string)[] = [
    // 1. MIME boundaries: those the mail declares, and the forms mail programs generate.
    (s) => boundaries.reduce((out, b) => out.split(b).join(names.of('BOUNDARY', b)), s),
    (s) => s.replace(/(?<![\w=-])(?:-{2,}=_|--_|=_)(?:Part|NextPart|[0-9a-f]{3})[\w.=-]{4,200}/gi, (b) => names.of('BOUNDARY', b)),
    // 2. URLs: tracking parameters dropped; secret parameters, generated values and codes in them replaced.
    (s) => s.replace(TEXT_URL, (url) => normaliseUrl(url, names, codes, inbox)),
    // 3. Message ids: <local@host> (or &lt;…&gt; in HTML), and the mail's own Message-ID and In-Reply-To anywhere.
    (s) =>
      s.replace(MESSAGE_ID, (whole, open: string, close: string) => {
        const placeholder = names.of('MESSAGE-ID', whole.slice(open.length, whole.length - close.length));
        return open === '<' ? placeholder : `&lt;${placeholder.slice(1, -1)}&gt;`;
      }),
    (s) => bareIds.reduce((out, id) => out.split(id).join(names.of('MESSAGE-ID', id)), s),
    // 4. The inbox's own address, with or without a +tag.
    (s) => (inboxPattern ? s.replace(inboxPattern, '<INBOX-ADDRESS>') : s),
    // 5. Dates and date-times, then times of day.
    (s) => s.replace(DATES, (d) => names.of('DATE', d)),
    (s) => s.replace(TIMES, (t) => names.of('TIME', t)),
    // 6. The verification codes found in the message (as verification.codes lists them), wherever they appear.
    (s) => (codeForms ? s.replace(codeForms, (c) => names.of('CODE', c.replace(/^(\d+)[ -](\d+)$/, '$1$2'))) : s),
  ];
  const fields: SnapshotFields = { subject: input.subject, text: input.text, html: input.html };
  for (const rule of rules) for (const field of ['subject', 'text', 'html'] as const) fields[field] = rule(fields[field]);
  return fields;
}
