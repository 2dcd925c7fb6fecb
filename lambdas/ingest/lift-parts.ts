/**
 * Large base64 attachments decoded in one pass over their bytes, away from mailparser. mailparser (through mailsplit
 * and libbase64) walks a body line by line: a slice, a `toString`, a regex and a decode for every 76-byte line, plus stream events;
 * for a 212 KB mail with a 150 KB attachment that was most of its 7–12 ms, and for a 40 MB mail most of the ingest
 * function's memory. Here, before mailparser:
 * - delimiter lines are found with Buffer.indexOf ("\n--"); the header block after one is read, and a part whose
 *   `Content-Transfer-Encoding` is base64 (and whose type is not text, multipart or message: those mailparser reads as
 *   content, not as an attachment) is a candidate;
 * - its body, up to the next line that starts with "-" (base64 has no "-", so no delimiter can hide in it) or the end
 *   of the mail, must be
 *   plain base64 lines (CRLF or LF, padding only at the very end, a whole number of quartets); anything else (spaces,
 *   stray bytes, padding in the middle, a cut quartet) is left to mailparser, which decodes it as before;
 * - such a body is checked (plainBase64) and replaced by a token: 24 bytes, 18 of them random per process, as base64;
 *   it is decoded in one pass over its bytes (decodePlain) only when its content is first read: the embedded store
 *   keeps it as that base64 in the raw mail (base64Span) and never reads it at ingest;
 * - mailparser parses the mail with the tokens, and every attachment whose content is a token gets the decoded bytes.
 * The split is checked, not trusted: unless every token came back as exactly one attachment's whole content (a
 * delimiter that was no delimiter to mailsplit, a header block mailsplit read otherwise, a part it took for text), the
 * caller parses the original mail with mailparser alone. So every attachment's bytes are the ones mailparser alone
 * would give (test/unit/lift-parts.test.ts compares both over a corpus of real and hostile mail).
 */
import { randomBytes } from 'node:crypto';

/** Bodies shorter than this stay with mailparser: below it the saving does not pay for the split. */
export const LIFT_MIN_BYTES = 4096;
/** A part's header block longer than this is not looked into (real ones are a few hundred bytes). */
const MAX_PART_HEAD = 16 * 1024;

/** Per process: a mail cannot forge a token it cannot know. */
const TOKEN_NONCE = randomBytes(18);
let tokenCounter = 0;

export interface Lifted {
  /** The mail with each lifted body replaced by its token line. */
  raw: Buffer;
  /** Token (base64 text) → the part: its decoded size, where its base64 lies in the original mail, its decoding. */
  bodies: Map<string, LiftedBody>;
}

export interface LiftedBody {
  size: number;
  start: number;
  end: number;
  decode: () => Buffer;
}

const DELIMITER = Buffer.from('\n--');
const CTE_BASE64 = /^content-transfer-encoding[ \t]*:[ \t]*base64[ \t]*\r?$/gim;
const CTE_ANY = /^content-transfer-encoding[ \t]*:/gim;
const CONTENT_TYPE = /^content-type[ \t]*:[ \t]*"?([^\s;"]*)/gim;
/** Each byte's base64 value; -1 for a byte that is none, -2 for the padding "=". */
const VALUE = new Int8Array(256).fill(-1);
[...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].forEach((c, i) => (VALUE[c.charCodeAt(0)] = i));
VALUE[0x3d] = -2;

/** Where the blank line ending a header block that starts at `start` ends (the body's first byte), or -1. */
function headEnd(raw: Buffer, start: number): number {
  if (raw[start] === 0x0a) return start + 1;
  if (raw[start] === 0x0d && raw[start + 1] === 0x0a) return start + 2;
  const limit = Math.min(raw.length, start + MAX_PART_HEAD);
  for (let nl = raw.indexOf(0x0a, start); nl >= 0 && nl < limit; nl = raw.indexOf(0x0a, nl + 1)) {
    if (raw[nl + 1] === 0x0a) return nl + 2;
    if (raw[nl + 1] === 0x0d && raw[nl + 2] === 0x0a) return nl + 3;
  }
  return -1;
}

function matches(re: RegExp, text: string): RegExpExecArray[] {
  re.lastIndex = 0;
  return [...text.matchAll(re)];
}

/** Whether the header block says base64, once, for a type mailparser keeps as an attachment. */
function isBase64Attachment(head: string): boolean {
  if (matches(CTE_BASE64, head).length !== 1 || matches(CTE_ANY, head).length !== 1) return false;
  const types = matches(CONTENT_TYPE, head);
  if (types.length > 1) return false;
  const type = types[0]?.[1].toLowerCase() ?? '';
  // No Content-Type (or an empty one) is text/plain to mailparser.
  return type.includes('/') && !/^(?:text|multipart|message)\//.test(type);
}

/**
 * Whether `raw[start, end)` is lines of whole base64 quartets ended by LF or CRLF, padded only in its last quartet:
 * its decoded size if so, else undefined. With `out` (of that size) it also decodes it there, in one pass over the
 * bytes (a string of the body for Buffer.from(…, 'base64') cost more than the decoding); it gives what libbase64
 * gives for such a body. Called once without `out` to check, and again with it when the content is first read.
 */
function plainBase64(raw: Buffer, start: number, end: number, out?: Buffer): number | undefined {
  let o = 0;
  let at = start;
  while (at < end) {
    const nl = raw.indexOf(0x0a, at);
    const lineEnd = raw[nl - 1] === 0x0d ? nl - 1 : nl;
    if ((lineEnd - at) % 4 !== 0) return undefined;
    for (; at < lineEnd; at += 4) {
      const a = VALUE[raw[at]];
      const b = VALUE[raw[at + 1]];
      const c = VALUE[raw[at + 2]];
      const d = VALUE[raw[at + 3]];
      if ((a | b | c | d) >= 0) {
        if (out) {
          const x = (a << 18) | (b << 12) | (c << 6) | d;
          out[o] = x >> 16;
          out[o + 1] = (x >> 8) & 0xff;
          out[o + 2] = x & 0xff;
        }
        o += 3;
        continue;
      }
      // Padding is allowed only in the body's very last quartet: "xy==" or "xyz=".
      if (at + 4 !== lineEnd || nl + 1 !== end || a < 0 || b < 0 || d !== -2 || (c < 0 && c !== -2)) return undefined;
      if (out) out[o] = ((a << 2) | (b >> 4)) & 0xff;
      o++;
      if (c >= 0) {
        if (out) out[o] = ((b << 4) | (c >> 2)) & 0xff;
        o++;
      }
    }
    at = nl + 1;
  }
  return o;
}

/** A checked body of `size` bytes decoded into memory of its own (the parse thread hands it over without a copy). */
function decodePlain(raw: Buffer, start: number, end: number, size: number): Buffer {
  const out = Buffer.allocUnsafeSlow(size);
  plainBase64(raw, start, end, out);
  return out;
}

/** The mail with its large plain-base64 attachment bodies lifted out, or undefined when there is none. */
export function liftParts(raw: Buffer): Lifted | undefined {
  const pieces: Buffer[] = [];
  const bodies = new Map<string, LiftedBody>();
  let copied = 0;
  let at = raw.indexOf(DELIMITER);
  while (at >= 0) {
    const lineEnd = raw.indexOf(0x0a, at + 1);
    if (lineEnd < 0) break;
    const bodyStart = headEnd(raw, lineEnd + 1);
    // A last part whose closing delimiter is missing runs to the end of the mail.
    const dash = bodyStart < 0 ? -1 : raw.indexOf(0x2d, bodyStart);
    const next = dash < 0 && bodyStart >= 0 ? raw.length : dash;
    // The body runs to the line that starts with "-": the "-" must be the first byte of a line.
    if (next < 0 || next - bodyStart < LIFT_MIN_BYTES || raw[next - 1] !== 0x0a || !isBase64Attachment(raw.toString('latin1', lineEnd + 1, bodyStart))) {
      at = raw.indexOf(DELIMITER, lineEnd);
      continue;
    }
    const size = plainBase64(raw, bodyStart, next);
    if (size !== undefined) {
      const token = Buffer.concat([TOKEN_NONCE, Buffer.from([0, 0, 0, 0, 0, 0])]);
      token.writeUIntBE(tokenCounter++ % 2 ** 48, TOKEN_NONCE.length, 6);
      const text = token.toString('base64');
      const [start, end] = [bodyStart, next];
      bodies.set(text, { size, start, end, decode: () => decodePlain(raw, start, end, size) });
      pieces.push(raw.subarray(copied, bodyStart), Buffer.from(`${text}\r\n`, 'latin1'));
      copied = next;
    }
    at = raw.indexOf(DELIMITER, next - 1);
  }
  if (!bodies.size) return undefined;
  pieces.push(raw.subarray(copied));
  return { raw: Buffer.concat(pieces), bodies };
}

/** `target` with a `content` decoded by `decode` when first read, then kept. */
function lazyContent<T extends object>(target: T, decode: () => Buffer): T {
  let content: Buffer | undefined;
  return Object.defineProperty(target, 'content', { enumerable: true, configurable: true, get: () => (content ??= decode()) });
}

/**
 * An attachment made from `source` (`fields`, and `source`'s content as it is defined: a lifted part's stays undecoded
 * until read). A spread would read it.
 */
export function withContentOf<T extends object>(source: { content: Buffer }, fields: T): T & { content: Buffer } {
  return Object.defineProperty(fields, 'content', { ...Object.getOwnPropertyDescriptor(source, 'content')!, enumerable: true, configurable: true }) as T & { content: Buffer };
}

/**
 * The attachments with each token replaced by its decoded body (and where its base64 lies in the original mail), or
 * undefined when the tokens did not come back as exactly one whole attachment each (the split disagreed with
 * mailparser's: parse the original instead).
 */
export function restoreParts<T extends { content: Buffer }>(attachments: T[], lifted: Lifted): (T & { size?: number; base64Span?: { start: number; end: number } })[] | undefined {
  const seen = new Set<string>();
  let stray = false;
  const restored = attachments.map((a) => {
    if (a.content.indexOf(TOKEN_NONCE) < 0) return a;
    const token = a.content.toString('base64');
    const body = lifted.bodies.get(token);
    if (!body || seen.has(token)) stray = true;
    seen.add(token);
    return body ? lazyContent({ ...a, size: body.size, base64Span: { start: body.start, end: body.end } }, body.decode) : a;
  });
  return !stray && seen.size === lifted.bodies.size ? restored : undefined;
}
