/**
 * Raw MIME → the parts a message is made of. mailparser walks the MIME tree and decodes the bodies; this layer
 * fixes what it gets wrong for real clients' mail and what it leaves to us:
 * - headers (subject, names, the `headers` list) are decoded by mime-headers.ts, from their bytes, exactly once;
 * - before mailparser, parts it would misread are rewritten (only when the mail has one): a UTF-7 text part (Outlook,
 *   Eudora) is decoded to UTF-8, and a `Content-Type` without a subtype ("text") is text/plain, as RFC 2045 §5.2 says;
 * - a mail without a text part gets text derived from its HTML, whatever else it holds, so codes and links are found
 *   in it. We derive it, not mailparser (told to skip it): its conversion has no bound on the HTML's size and costs
 *   time with the nesting depth, on the thread that serves SMTP and the API; textOfHtml's cost is linear.
 * It never throws and never hangs: when mailparser fails or runs out of time, the mail is parsed minimally (headers
 * and the body as text) and `parse_error` says why, so a message is always stored.
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Joiner, Rewriter, Splitter } from '@zone-eu/mailsplit';
import { decodeHTML } from 'entities';
import { htmlToText } from 'html-to-text';
import iconv from 'iconv-lite';
import { simpleParser, type ParsedMail as MailparserResult } from 'mailparser';
import { MESSAGE_CAPS } from '../core/limits';
import type { ParsedAttachment, InProcessParse, MailParser, ParseOptions } from '../core/ports';
import { wellFormed } from '../core/message';
import { liftParts, restoreParts, withContentOf } from './lift-parts';
import { charsetOf, decodeHeaderValue, parseAddresses, splitHeaders } from './mime-headers';

/**
 * html-to-text converts HTML up to this long and nested at most this deep; other HTML is made text by stripping its
 * tags, in one linear pass. Its cost grows with the document (about 0.75 ms per KB) and, in the parser under it, with
 * the nesting depth times the document: 220 KB of unclosed nested tables took 0.6 s, 900 KB 14 s, with the SMTP
 * server and the API waiting. Real mail stays far below both (Gmail clips mail past 102 KB; Chrome flattens nesting
 * past 512 levels).
 */
const HTML_TO_TEXT_MAX_CHARS = 512 * 1024;
const HTML_TO_TEXT_MAX_DEPTH = 256;
/** Elements that hold no content: their start tag opens no level. */
const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements an HTML parser closes when a sibling opens (td after td): an unclosed run of them does not nest. */
const IMPLIED_END_ELEMENTS = new Set(['p', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'rt', 'rp']);

/** What every parse reads from the top-level header block itself. */
function headerFacts(raw: Buffer, options: ParseOptions) {
  const { headers, bodyOffset } = splitHeaders(raw);
  // Each field's values by lower-cased name, made in one pass: the lookups below read a few names each.
  const byName = new Map<string, string[]>();
  for (const h of headers) {
    const name = h.name.toLowerCase();
    const values = byName.get(name);
    if (values) values.push(h.value);
    else byName.set(name, [h.value]);
  }
  const all = (name: string): string[] => byName.get(name) ?? [];
  const first = (name: string): string | undefined => byName.get(name)?.[0];
  const declared = charsetOf(first('content-type'));
  const from = parseAddresses(all('from').slice(0, 1), declared)[0];
  const addresses = (name: string) => [...new Set(parseAddresses(all(name), declared).map((m) => m.address))];
  const messageId = (value: string | undefined) => (value ? (/<[^<>\s]{1,995}>/.exec(value)?.[0] ?? (value.trim().slice(0, 998) || null)) : null);
  return {
    bodyOffset,
    declared,
    from: from?.address ?? options.envelopeFrom ?? '',
    from_name: from?.name ?? null,
    subject: decodeHeaderValue(first('subject') ?? '', declared),
    to: addresses('to'),
    cc: addresses('cc').slice(0, MESSAGE_CAPS.addresses),
    reply_to: addresses('reply-to').slice(0, MESSAGE_CAPS.addresses),
    message_id: messageId(first('message-id')),
    in_reply_to: messageId(first('in-reply-to')),
    headers: headers.slice(0, MESSAGE_CAPS.headers).map((h) => ({ name: h.name, value: decodeHeaderValue(h.value, declared) })),
    header_count: headers.length,
  };
}

/** Whether any part needs rewriting before mailparser reads it (a cheap scan; most mail needs none). */
function needsRewrite(raw: Buffer): boolean {
  const text = raw.toString('latin1');
  return /charset\s*=\s*"?(?:unicode-1-1-)?utf-?7\b/i.test(text) || /^content-type\s*:\s*text\s*(?:;|\r?\n(?![ \t]))/im.test(text);
}

const isUtf7 = (charset: string | false) => !!charset && /^(?:unicode-1-1-)?utf-?7$/i.test(charset.trim());

/** UTF-7 text parts decoded to UTF-8, `Content-Type: text` made text/plain. The raw mail itself is kept as it was. */
async function rewriteParts(raw: Buffer): Promise<Buffer> {
  const rewriter = new Rewriter((node) => {
    if (node.contentType && !node.contentType.includes('/') && node.contentType === 'text') node.setContentType('text/plain');
    return !!node.contentType && node.contentType.startsWith('text/') && isUtf7(node.charset);
  });
  rewriter.on('node', ({ node, decoder, encoder }) => {
    node.setCharset('utf-8');
    const utf7 = iconv.getDecoder('utf-7');
    const toUtf8 = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        done(null, Buffer.from(utf7.write(chunk)));
      },
      flush(done) {
        done(null, Buffer.from(utf7.end() ?? ''));
      },
    });
    decoder.pipe(toUtf8).pipe(encoder);
  });
  const chunks: Buffer[] = [];
  await pipeline(Readable.from([raw]), new Splitter(), rewriter, new Joiner(), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}

/**
 * Whether elements in `html` nest deeper than `max`, in one pass: a start tag opens a level (not a void element or
 * one closed by its next sibling), an end tag closes down to the nearest open element of its name and is ignored
 * when there is none, comments are skipped. Stops once past `max`.
 */
export function nestsDeeperThan(html: string, max: number): boolean {
  const open: string[] = [];
  const counts = new Map<string, number>();
  const tag = /<(!--|\/?)([A-Za-z][\w:-]*)?/g;
  for (let match = tag.exec(html); match; match = tag.exec(html)) {
    if (match[1] === '!--') {
      const end = html.indexOf('-->', tag.lastIndex);
      if (end < 0) return false;
      tag.lastIndex = end + 3;
      continue;
    }
    const name = match[2]?.toLowerCase();
    if (!name || VOID_ELEMENTS.has(name) || IMPLIED_END_ELEMENTS.has(name)) continue;
    if (match[1] !== '/') {
      open.push(name);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (open.length > max) return true;
    } else if (counts.get(name)) {
      for (let closed = open.pop(); closed !== undefined; closed = open.pop()) {
        counts.set(closed, counts.get(closed)! - 1);
        if (closed === name) break;
      }
    }
  }
  return false;
}

/**
 * HTML made text without a parser, linear in its length: script and style elements dropped with their content,
 * other tags replaced by a space, character references decoded (`&nbsp;` a space). A `<` with no `>` after it is text.
 */
export function stripTags(html: string): string {
  const lower = html.toLowerCase();
  const out: string[] = [];
  // Where the next end tag of each raw-text element is, once looked for (-1: there is none): each search starts
  // past the previous one, so thousands of unclosed <style> tags cost one scan, not one each.
  const nextEnd = new Map<string, number>();
  const endTagAfter = (name: string, from: number): number => {
    const known = nextEnd.get(name);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const found = lower.indexOf(`</${name}`, from);
    nextEnd.set(name, found);
    return found;
  };
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf('<', at);
    if (lt < 0) break;
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) break; // no tag closes after this: the rest is text
    out.push(html.slice(at, lt), ' ');
    at = gt + 1;
    const raw = /^<(script|style)\b/.exec(lower.slice(lt, lt + 8));
    if (raw) {
      const end = endTagAfter(raw[1], at);
      if (end >= 0) {
        const close = html.indexOf('>', end);
        at = close < 0 ? html.length : close + 1;
      }
    }
  }
  out.push(html.slice(at));
  // Character references decoded as html-to-text does (`&amp;` is "&"), a no-break space made a space as before.
  return decodeHTML(out.join(''))
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** Text of an HTML document, for a mail that has no text part. Linear in the document, whatever it holds. */
export function textOfHtml(html: string): string {
  if (!html) return '';
  if (html.length <= HTML_TO_TEXT_MAX_CHARS && !nestsDeeperThan(html, HTML_TO_TEXT_MAX_DEPTH)) {
    try {
      return htmlToText(html, { wordwrap: false, limits: { maxDepth: HTML_TO_TEXT_MAX_DEPTH } });
    } catch {
      // fall through to the plain strip
    }
  }
  return stripTags(html);
}

function fromMailparser(mail: MailparserResult, facts: ReturnType<typeof headerFacts>): InProcessParse {
  const html = typeof mail.html === 'string' ? mail.html : '';
  const text = mail.text?.trim() ? mail.text : html ? textOfHtml(html) : (mail.text ?? '');
  return {
    from: facts.from,
    from_name: facts.from_name,
    subject: facts.subject,
    text,
    html,
    attachments: mail.attachments.map((a) =>
      withContentOf(a, {
        filename: a.filename ?? null,
        content_type: a.contentType || 'application/octet-stream',
        content_id: a.cid ?? null,
        // A lifted part's size, without decoding it (lift-parts.ts); mailparser's own parts' length.
        size: 'base64Span' in a ? (a as { size: number }).size : a.content.length,
        ...spanOf(a),
      }),
    ),
    to: facts.to,
    cc: facts.cc,
    reply_to: facts.reply_to,
    message_id: facts.message_id,
    in_reply_to: facts.in_reply_to,
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : null,
    headers: facts.headers,
    header_count: facts.header_count,
    parse_error: null,
    warnings: [],
  };
}

/**
 * Every string of a parse as well-formed Unicode: a half of a UTF-16 surrogate pair (a header or file name encoded
 * in UTF-16 and cut, a body in a broken UTF-16) becomes U+FFFD. Left in, it reached the API's JSON as an escape that
 * strict JSON decoders refuse, and a download's Content-Disposition threw.
 */
function wellFormedMail(mail: InProcessParse): InProcessParse {
  const all = (values: string[]) => values.map(wellFormed);
  const orNull = (value: string | null) => (value === null ? null : wellFormed(value));
  return {
    ...mail,
    from: wellFormed(mail.from),
    from_name: orNull(mail.from_name),
    subject: wellFormed(mail.subject),
    text: wellFormed(mail.text),
    html: wellFormed(mail.html),
    attachments: mail.attachments.map((a) =>
      withContentOf(a, { ...withoutContent(a), filename: orNull(a.filename), content_type: wellFormed(a.content_type), content_id: orNull(a.content_id) }),
    ),
    to: all(mail.to),
    cc: all(mail.cc),
    reply_to: all(mail.reply_to),
    message_id: orNull(mail.message_id),
    in_reply_to: orNull(mail.in_reply_to),
    headers: mail.headers.map((h) => ({ name: wellFormed(h.name), value: wellFormed(h.value) })),
  };
}

/**
 * The last resort, and the degraded form ingest stores when the full form cannot be stored: the headers as
 * above and the body as text (decoded as UTF-8, else the declared charset, else windows-1252). Linear, never throws.
 */
export function minimalParse(raw: Buffer, options: ParseOptions, error: string): InProcessParse {
  return wellFormedMail(minimalForm(raw, options, error));
}

function minimalForm(raw: Buffer, options: ParseOptions, error: string): InProcessParse {
  let facts: ReturnType<typeof headerFacts>;
  try {
    facts = headerFacts(raw, options);
  } catch {
    facts = { bodyOffset: 0, declared: null, from: options.envelopeFrom ?? '', from_name: null, subject: '', to: [], cc: [], reply_to: [], message_id: null, in_reply_to: null, headers: [], header_count: 0 };
  }
  const body = raw.subarray(facts.bodyOffset, facts.bodyOffset + 2_000_000);
  let text = body.toString('utf8');
  if (text.includes('\ufffd') && facts.declared) text = iconv.encodingExists(facts.declared) ? iconv.decode(body, facts.declared) : text;
  const { bodyOffset: _b, declared: _d, ...rest } = facts;
  return { ...rest, text, html: '', attachments: [], date: null, parse_error: error, warnings: [error] };
}

/** An attachment's fields but its content (which a spread would read, decoding a lifted part). */
function withoutContent(a: ParsedAttachment): Omit<ParsedAttachment, 'content'> {
  return { filename: a.filename, content_type: a.content_type, content_id: a.content_id, size: a.size, ...(a.base64Span ? { base64Span: a.base64Span } : {}) };
}

/** Where a lifted attachment's base64 lies in the raw mail (restoreParts marks it), to keep it there. */
const spanOf = (a: object) => ('base64Span' in a && a.base64Span ? { base64Span: a.base64Span as { start: number; end: number } } : {});

/** The top-level fields mailparser's reading of the bodies depends on (we use its date too): its Content-* and these. */
const STRUCTURE_FIELD = /^(?:content-[\x21-\x39\x3b-\x7e]*|mime-version|date):/i;
/** A field as RFC 5322 writes it: a name of printable characters but the colon, then the colon (folded lines allowed). */
const PLAIN_FIELD = /^[\x21-\x39\x3b-\x7e]+:/;

/**
 * The mail with only the top-level header fields that shape its MIME structure (STRUCTURE_FIELD), the body's bytes
 * as they are. Every other field is read by headerFacts, once; mailparser parsed and formatted the address fields
 * again (to HTML too) for nothing: a fifth of its time on a 2.5 KB mail. The header block ends where mailparser's
 * splitter ends it, at the first empty line (LF or CRLF). Only a plain header block is cut: when a line is not a
 * field as RFC 5322 writes it (a name with a space or control character before it or its colon, which mailparser
 * trims, a line without a colon, a first line that looks folded), mailparser reads the mail whole, as before.
 */
export function structureOnly(raw: Buffer): Buffer {
  if (raw[0] === 0x0a || raw[0] === 0x0d) return raw; // no header block
  const ends = [raw.indexOf('\n\n'), raw.indexOf('\n\r\n')].filter((at) => at >= 0);
  if (ends.length === 0) return raw; // no body
  const end = Math.min(...ends);
  const fields = raw.toString('latin1', 0, end).split(/\r?\n(?![ \t])/);
  if (!fields.every((line) => PLAIN_FIELD.test(line))) return raw;
  const kept = fields.filter((line) => STRUCTURE_FIELD.test(line)).map((line) => `${line.replace(/\r$/, '')}\r\n`);
  return Buffer.concat([Buffer.from(kept.join(''), 'latin1'), raw.subarray(end + 1)]);
}

/**
 * mailparser's reading of the whole mail, parts rewritten when needed, without attachment checksums (nothing uses
 * them). What the split's result is checked against in test/unit/lift-parts.test.ts.
 */
export async function mailparserOf(raw: Buffer): Promise<MailparserResult> {
  // Cut before the rewrite, whose splitter reads the header block too.
  const cut = structureOnly(raw);
  const input = needsRewrite(cut) ? await rewriteParts(cut) : cut;
  return simpleParser(input, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true, checksumAlgo: false });
}

/** The MIME structure, large base64 attachments decoded natively (lift-parts.ts) when the split agrees with mailparser's. */
async function parseStructure(raw: Buffer): Promise<MailparserResult> {
  const lifted = liftParts(raw);
  if (lifted) {
    const parsed = await mailparserOf(lifted.raw);
    const attachments = restoreParts(parsed.attachments, lifted);
    if (attachments) return { ...parsed, attachments };
  }
  return mailparserOf(raw);
}

/** The full parse's time budget (ParseOptions.timeoutMs): 5 s plus 1 s per MB unless the caller sets one. */
export const parseBudgetMs = (raw: Buffer, options: ParseOptions): number => options.timeoutMs ?? 5_000 + Math.ceil(raw.length / 1_048_576) * 1_000;

export async function parseMail(raw: Buffer, options: ParseOptions = {}): Promise<InProcessParse> {
  const budget = parseBudgetMs(raw, options);
  let timer: NodeJS.Timeout | undefined;
  try {
    const facts = headerFacts(raw, options);
    const parsed = await Promise.race([
      parseStructure(raw),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`mailparser took longer than ${budget} ms`)), budget);
      }),
    ]);
    return wellFormedMail(fromMailparser(parsed, facts));
  } catch (error) {
    return minimalParse(raw, options, `the MIME structure could not be parsed (${(error as Error).message}); shown as plain text`);
  } finally {
    clearTimeout(timer);
  }
}

/** The MailParser port (core/ports.ts) the ingest use case is handed by the composition root (lambdas/app/). */
export const mailParser: MailParser = { parse: parseMail, minimal: minimalParse };
