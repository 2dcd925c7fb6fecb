/**
 * Header decoding the way real clients need it, done by us rather than by mailparser: mailparser reads raw 8-bit
 * header bytes as UTF-8 only (Eudora's and Outlook Express's Latin-1 subjects came back with U+FFFD), decodes an
 * encoded word holding raw 8-bit bytes twice ("Fr=F6sche" written as a raw 0xF6 came back as "Frï¿½sche") and refuses
 * UTF-7 (Outlook's "=?utf-7?Q?Fr+APY-sche?=" stayed as it was). Here every header value is decoded exactly once,
 * from its bytes:
 * - an encoded word by its declared charset, then as UTF-8, then as windows-1252 (the first that decodes without a
 *   replacement character), adjacent words of one charset joined before decoding (a character split across two
 *   words, as Gmail and Outlook write long subjects, stays whole);
 * - raw 8-bit bytes outside encoded words as UTF-8 (RFC 6532), then by the charset the message declares, then as
 *   windows-1252.
 * Raw header values are latin1 strings: one character per byte, so no byte is lost before it is decoded.
 */
import iconv from 'iconv-lite';
import libmime from 'libmime';
import { parseAddressHeader } from 'mailparser';

export interface RawHeader {
  /** The name as written. */
  name: string;
  /** The value, unfolded, as a latin1 string (one character per byte). */
  value: string;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The charsets we refuse to decode with: transfer encodings that iconv-lite also offers as "charsets". */
const NOT_CHARSETS = new Set(['base64', 'hex', 'binary']);

/** Bytes as text in `charset`, or null when the charset is unknown or the bytes are not valid in it. */
export function decodeStrict(bytes: Buffer, charset: string): string | null {
  const name = charset.trim().toLowerCase().replace(/^"|"$/g, '');
  if (!name || NOT_CHARSETS.has(name)) return null;
  try {
    if (/^(utf-?8|us-ascii|ascii)$/.test(name)) return UTF8.decode(bytes);
    let text: string;
    if (iconv.encodingExists(name)) text = iconv.decode(bytes, name);
    else if (/^(iso-?2022-?jp|jis|euc-?jp|shift_jis|sjis)/.test(name)) text = libmime.decodeWord(name, 'B', bytes.toString('base64'));
    else return null;
    return text.includes('\ufffd') ? null : text;
  } catch {
    return null;
  }
}

/** The first charset of `chain` that decodes the bytes cleanly; windows-1252 always does, nearly. */
export function decodeWithFallback(bytes: Buffer, chain: (string | null | undefined)[]): string {
  for (const charset of chain) {
    if (!charset) continue;
    const text = decodeStrict(bytes, charset);
    if (text !== null) return text;
  }
  return iconv.decode(bytes, 'windows-1252');
}

const hasHighBytes = (latin1: string) => /[\x80-\xff]/.test(latin1);
const bytesOf = (latin1: string) => Buffer.from(latin1, 'latin1');

/** Raw header text (no encoded words) → Unicode: UTF-8, then the declared charset, then windows-1252. */
function decodeRawText(latin1: string, declared: string | null): string {
  return hasHighBytes(latin1) ? decodeWithFallback(bytesOf(latin1), ['utf-8', declared]) : latin1;
}

const ENCODED_WORD = /=\?([^?\s]{1,60})\?([bBqQ])\?([^?]*)\?=/g;

function wordBytes(encoding: string, text: string): Buffer {
  if (encoding.toUpperCase() === 'B') return Buffer.from(text.replace(/[^A-Za-z0-9+/]/g, ''), 'base64');
  // Q: "_" is a space, =XX a byte; any other character (raw 8-bit ones included) stands for its own byte.
  return bytesOf(text.replace(/_/g, ' ').replace(/=([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
}

type Piece = { word: false; text: string } | { word: true; charset: string; bytes: Buffer };

function pieces(latin1: string): Piece[] {
  const out: Piece[] = [];
  let last = 0;
  for (const match of latin1.matchAll(ENCODED_WORD)) {
    const index = match.index ?? 0;
    const between = latin1.slice(last, index);
    const previous = out[out.length - 1];
    // Whitespace between two encoded words is not part of the text (RFC 2047 §6.2).
    if (between && !(previous?.word && /^[ \t\r\n]*$/.test(between))) out.push({ word: false, text: between });
    // RFC 2231 allows a language after "*" in the charset: =?utf-8*en?Q?…?=.
    const charset = match[1].split('*')[0].toLowerCase();
    const bytes = wordBytes(match[2], match[3]);
    const tail = out[out.length - 1];
    if (tail?.word && tail.charset === charset) tail.bytes = Buffer.concat([tail.bytes, bytes]);
    else out.push({ word: true, charset, bytes });
    last = index + match[0].length;
  }
  if (last < latin1.length) out.push({ word: false, text: latin1.slice(last) });
  return out;
}

const decodeWord = (piece: Extract<Piece, { word: true }>) => decodeWithFallback(piece.bytes, [piece.charset, 'utf-8']);

/** An unstructured header value (Subject, a display name, any header for the `headers` list), decoded once. */
export function decodeHeaderValue(latin1: string, declared: string | null = null): string {
  if (!latin1.includes('=?')) return decodeRawText(latin1, declared); // no encoded word: one piece of text (most fields)
  return pieces(latin1)
    .map((p) => (p.word ? decodeWord(p) : decodeRawText(p.text, declared)))
    .join('');
}

/**
 * An address header made safe for an address parser: raw 8-bit text decoded, each encoded word re-encoded as one
 * clean UTF-8 word, so that the structure (commas, quotes, angle brackets) is parsed before names are decoded and
 * a name like "=?utf-8?Q?Doe,_John?=" stays one name.
 */
function cleanAddressValue(latin1: string, declared: string | null): string {
  return pieces(latin1)
    .map((p) => (p.word ? `=?UTF-8?B?${Buffer.from(decodeWord(p)).toString('base64')}?=` : decodeRawText(p.text, declared)))
    .join('');
}

export interface Mailbox {
  address: string;
  name: string | null;
}

/** The mailboxes of address headers (groups flattened), in order. */
export function parseAddresses(values: string[], declared: string | null): Mailbox[] {
  if (values.length === 0) return [];
  const out: Mailbox[] = [];
  const visit = (entries: { address?: string; name?: string; group?: unknown[] }[]) => {
    for (const entry of entries) {
      if (entry.group) visit(entry.group as typeof entries);
      else if (entry.address) out.push({ address: entry.address.toLowerCase(), name: entry.name?.trim() || null });
    }
  };
  try {
    visit(parseAddressHeader(values.map((v) => cleanAddressValue(v, declared))).value);
  } catch {
    // an unparsable address header lists no mailbox
  }
  return out;
}

/**
 * The header block of a message or part: every field, unfolded, as latin1 strings. `bodyOffset` is where the body
 * starts (the raw length when there is no blank line). Linear in the header block's size.
 */
export function splitHeaders(raw: Buffer): { headers: RawHeader[]; bodyOffset: number } {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  let end: number;
  let bodyOffset: number;
  if (crlf >= 0 && (lf < 0 || crlf < lf)) [end, bodyOffset] = [crlf, crlf + 4];
  else if (lf >= 0) [end, bodyOffset] = [lf, lf + 2];
  else [end, bodyOffset] = [raw.length, raw.length];
  // A body that starts at once (no header at all) has a blank first line.
  if (raw[0] === 0x0d || raw[0] === 0x0a) return { headers: [], bodyOffset: raw[0] === 0x0d ? 2 : 1 };
  const headers: RawHeader[] = [];
  for (const line of raw.toString('latin1', 0, end).split(/\r?\n(?![ \t])/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue; // not a header field (an mbox "From " line, garbage): skipped
    const name = line.slice(0, colon).trim();
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) continue;
    headers.push({ name, value: line.slice(colon + 1).replace(/\r?\n[ \t]/g, (m) => m.slice(-1)).trim() });
  }
  return { headers, bodyOffset };
}

/** The charset parameter of a Content-Type value, or null. */
export function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match ? match[1].toLowerCase() : null;
}
