/**
 * Large base64 attachments are decoded natively and kept away from mailparser (lambdas/ingest/lift-parts.ts); every
 * attachment must still come out byte for byte as mailparser alone gives it, and the text and HTML the same. The
 * corpus: the real clients' mail of test/fixtures/mail, mail built here with large attachments in the forms mailers
 * write them, hostile MIME (malformed base64, missing or false boundaries, a boundary string inside a body, nested and
 * embedded multiparts, CRLF and LF), and seeded random damage to those.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LIFT_MIN_BYTES, liftParts } from '../../lambdas/ingest/lift-parts';
import { mailparserOf, parseMail } from '../../lambdas/ingest/parse-mail';

/** Deterministic bytes (xorshift), so a failure can be replayed. */
function prng(seed: number) {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
const bytes = (n: number, seed: number) => {
  const next = prng(seed);
  return Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));
};
const wrap = (b64: string, width = 76, eol = '\r\n') => (b64.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(eol);

function mail(parts: string[], { eol = '\r\n', boundary = 'BB', close = true, preamble = '' } = {}): Buffer {
  const head = [`From: Ann <ann@example.com>`, 'To: box@example.com', 'Subject: lift', 'MIME-Version: 1.0', `Content-Type: multipart/mixed; boundary="${boundary}"`];
  const body = parts.map((p) => `--${boundary}${eol}${p}${eol}`).join('') + (close ? `--${boundary}--${eol}` : '');
  return Buffer.from(`${head.join(eol)}${eol}${eol}${preamble}${body}`.replace(/\r\n/g, eol), 'latin1');
}
const textPart = (text: string, eol = '\r\n') => `Content-Type: text/plain; charset=utf-8${eol}${eol}${text}`;
const attachment = (content: Buffer, { name = 'a.pdf', type = 'application/pdf', eol = '\r\n', width = 76, extraHead = '' } = {}) =>
  `Content-Type: ${type}; name="${name}"${eol}Content-Transfer-Encoding: base64${eol}Content-Disposition: attachment; filename="${name}"${eol}${extraHead}${eol}${wrap(content.toString('base64'), width, eol)}`;

const big = bytes(150 * 1024, 1);
const big2 = bytes(9_001, 2); // padded "=="
const big3 = bytes(20_000, 3); // padded "="

/** Mail the split must lift at least one part of. */
const lifted: Record<string, Buffer> = {
  'one 150 KB attachment, CRLF': mail([textPart('hello'), attachment(big)]),
  'one 150 KB attachment, LF': mail([textPart('hello', '\n'), attachment(big, { eol: '\n' })], { eol: '\n' }),
  'padding of one and two': mail([attachment(big2, { name: 'one.bin' }), attachment(big3, { name: 'two.bin' }), attachment(bytes(LIFT_MIN_BYTES + 3, 4), { name: 'none.bin' })]),
  'octet-stream named .png (type from the name)': mail([attachment(big, { type: 'application/octet-stream', name: 'x.png' })]),
  'lines of 64, upper-case BASE64': mail([attachment(big, { width: 64 }).replace('base64', 'BASE64')]),
  'nested multiparts': mail([
    `Content-Type: multipart/alternative; boundary="ALT"\r\n\r\n--ALT\r\n${textPart('plain')}\r\n--ALT\r\nContent-Type: multipart/related; boundary="REL"\r\n\r\n--REL\r\nContent-Type: text/html\r\n\r\n<p>x<img src="cid:i1"></p>\r\n--REL\r\n${attachment(big2, { type: 'image/png', name: 'i.png', extraHead: 'Content-ID: <i1>\r\n' })}\r\n--REL--\r\n\r\n--ALT--`,
    attachment(big3, { name: 'outer.bin' }),
  ]),
  'embedded message with an attachment': mail([
    `Content-Type: message/rfc822\r\nContent-Disposition: inline\r\n\r\nFrom: b@example.com\r\nSubject: inner\r\nContent-Type: multipart/mixed; boundary="IN"\r\n\r\n--IN\r\n${textPart('inner text')}\r\n--IN\r\n${attachment(big2, { name: 'inner.bin' })}\r\n--IN--`,
  ]),
  'a boundary string inside the text, not at a line start': mail([textPart('see --BB and\r\n --BB-- here\r\n'), attachment(big)]),
  'closing boundary missing': mail([textPart('hello'), attachment(big)], { close: false }),
  'a boundary-like line that is not one, after the base64': mail([textPart('x'), `${attachment(big)}\r\n--BBX\r\nQUJD`]),
  'a single letter after a false boundary': mail([`${attachment(big3)}\r\n--x`]),
  'a part header written inside a text body': mail([
    textPart(`forged:\r\n--BB-not\r\n${attachment(big2, { name: 'forged.bin' })}\r\n-- \r\nsignature`),
    attachment(big3, { name: 'real.bin' }),
  ]),
  'preamble holding a part': mail([attachment(big3)], { preamble: `--XX\r\n${attachment(big2, { name: 'pre.bin' })}\r\n` }),
};

/** Mail the split must leave to mailparser (or whose lift mailparser disagrees with), parsed all the same. */
const left: Record<string, Buffer> = {
  'a "--" line inside the base64': mail([attachment(big).replace(/\r\n(?=[A-Za-z0-9+/]{76}\r\n)/, '\r\n--\r\n')]),
  'spaces at line ends': mail([attachment(big).replace(/\r\n/g, ' \r\n')]),
  'a stray byte in the base64': mail([attachment(big).replace(/(\r\n[A-Za-z0-9+/]{10})/, '$1*')]),
  'padding in the middle': mail([attachment(big).replace(/(\r\n[A-Za-z0-9+/]{74})[A-Za-z0-9+/]{2}/, '$1==')]),
  'a line cut short of a quartet': mail([attachment(big).replace(/(\r\n[A-Za-z0-9+/]{73})[A-Za-z0-9+/]{3}\r\n/, '$1\r\n')]),
  'url-safe letters': mail([attachment(big).replace(/\+/g, '-').replace(/\//g, '_')]),
  'base64 text part': mail([`Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${wrap(Buffer.from('héllo '.repeat(2000)).toString('base64'))}`, attachment(big2)]),
  'no Content-Type on the base64 part': mail([`Content-Transfer-Encoding: base64\r\n\r\n${wrap(big2.toString('base64'))}`]),
  'two transfer encodings': mail([attachment(big, { extraHead: 'Content-Transfer-Encoding: 7bit\r\n' })]),
  'boundary declared, never used': Buffer.from(`Content-Type: multipart/mixed; boundary="NONE"\r\nSubject: x\r\n\r\n--OTHER\r\n${attachment(big2)}\r\n--OTHER--\r\n`),
  'not multipart, all base64': Buffer.from(`Content-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n${wrap(big2.toString('base64'))}\r\n`),
};

const fixtures = path.join(__dirname, '..', 'fixtures', 'mail');
const real: Record<string, Buffer> = Object.fromEntries(
  fs
    .readdirSync(fixtures)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => [f, fs.readFileSync(path.join(fixtures, f))]),
);

/** Seeded damage to the lifted corpus: bytes that matter to a MIME reader, put at random places. */
function damaged(count: number): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  const next = prng(7);
  const sources = Object.values(lifted);
  const inserts = ['-', '--', '\n', '\r\n', '=', '==', ' ', '\n--BB\n', '\r\n--BB--\r\n', 'A', '\n\n', '\r\n\r\n', '*', '\n--BB\nContent-Transfer-Encoding: base64\n\n'];
  for (let i = 0; i < count; i++) {
    let raw = sources[Math.floor(next() * sources.length)];
    for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
      const at = Math.floor(next() * raw.length);
      const insert = inserts[Math.floor(next() * inserts.length)];
      raw = Buffer.concat([raw.subarray(0, at), Buffer.from(insert), raw.subarray(at + (next() < 0.3 ? 1 : 0))]);
    }
    out[`damaged #${i}`] = raw;
  }
  return out;
}

async function expectSameAsMailparser(raw: Buffer) {
  const [mine, theirs] = await Promise.all([parseMail(raw), mailparserOf(raw)]);
  expect(mine.parse_error).toBeNull();
  expect(mine.attachments.map((a) => [a.filename, a.content_type, a.content_id, a.size])).toEqual(
    theirs.attachments.map((a) => [a.filename ?? null, a.contentType || 'application/octet-stream', a.cid ?? null, a.content.length]),
  );
  mine.attachments.forEach((a, i) => expect(a.content.equals(theirs.attachments[i].content)).toBe(true));
  // Where a lifted body's base64 lies in the mail (the embedded store keeps it there): it decodes to those same bytes.
  for (const a of mine.attachments) if (a.base64Span) expect(Buffer.from(raw.toString('latin1', a.base64Span.start, a.base64Span.end), 'base64').equals(a.content)).toBe(true);
  expect(mine.html).toBe(typeof theirs.html === 'string' ? theirs.html : '');
  if (theirs.text?.trim()) expect(mine.text).toBe(theirs.text);
}

describe('the parse gives what mailparser alone gives', () => {
  it.each(Object.entries(lifted))('%s (lifted)', async (_name, raw) => {
    const split = liftParts(raw);
    expect(split).toBeDefined();
    // The lifted bodies are out of what mailparser is handed.
    expect(split!.raw.length).toBeLessThan(raw.length - LIFT_MIN_BYTES);
    await expectSameAsMailparser(raw);
    // Each lifted body comes back with where its base64 lies (the embedded store keeps it there), unless the split
    // was refused (then mailparser alone parsed the mail, and no attachment names a span).
    expect([0, split!.bodies.size]).toContain((await parseMail(raw)).attachments.filter((a) => a.base64Span).length);
  });
  it.each(Object.entries(left))('%s (left to mailparser)', async (_name, raw) => expectSameAsMailparser(raw));
  it.each(Object.entries(real))('%s (real client)', async (_name, raw) => expectSameAsMailparser(raw));
  it.each(Object.entries(damaged(120)))('%s', async (_name, raw) => expectSameAsMailparser(raw));
});

describe('the split', () => {
  it('lifts each large plain-base64 attachment and nothing else', () => {
    const raw = mail([textPart('hello'), attachment(big, { name: 'a' }), attachment(big2, { name: 'b' }), attachment(bytes(LIFT_MIN_BYTES / 2, 5), { name: 'small' })]);
    const split = liftParts(raw)!;
    expect([...split.bodies.values()].map((b) => b.size)).toEqual([big.length, big2.length]);
    expect([...split.bodies.values()].map((b) => b.decode().length)).toEqual([big.length, big2.length]);
    expect([...split.bodies.values()][0].decode().equals(big)).toBe(true);
    // Each body's span in the mail is the base64 that decodes to it, as Node's decoder reads it (a store keeps it there).
    for (const { decode, start, end } of split.bodies.values()) expect(Buffer.from(raw.toString('latin1', start, end), 'base64').equals(decode())).toBe(true);
    // Headers, the text part and the small attachment are handed on as they were.
    expect(split.raw.toString('latin1')).toContain(attachment(bytes(LIFT_MIN_BYTES / 2, 5), { name: 'small' }));
    expect(split.raw.toString('latin1')).toContain(textPart('hello'));
  });

  it('lifts only bodies it can decode, to the size it checked, as Node decodes their span (3,000 damaged bodies)', () => {
    let x = 35;
    const next = () => ((x = (x * 1103515245 + 12345) % 2 ** 31), x / 2 ** 31);
    const inserts = ['=', '==', '\n', '\r\n', '\r', 'A', 'AAAA', '\n\n', '=\n', '\r\r\n', '\n=', '\x00', '\xff'];
    let liftedBodies = 0;
    for (let i = 0; i < 3000; i++) {
      const body = bytes(LIFT_MIN_BYTES + Math.floor(next() * 2000), i);
      let b64 = body.toString('base64').replace(/.{1,76}/g, (m) => `${m}${next() < 0.5 ? '\r\n' : '\n'}`);
      for (let e = Math.floor(next() * 3); e > 0; e--) {
        const at = Math.floor(next() * b64.length);
        b64 = b64.slice(0, at) + inserts[Math.floor(next() * inserts.length)] + b64.slice(at + (next() < 0.3 ? 1 : 0));
      }
      const raw = Buffer.from(`Content-Type: multipart/mixed; boundary=BB\r\n\r\n--BB\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64}--BB--\r\n`, 'latin1');
      for (const b of liftParts(raw)?.bodies.values() ?? []) {
        liftedBodies++;
        const decoded = b.decode();
        expect(decoded.length).toBe(b.size);
        expect(decoded.equals(Buffer.from(raw.toString('latin1', b.start, b.end), 'base64'))).toBe(true);
      }
    }
    expect(liftedBodies).toBeGreaterThan(500);
  });

  it('gives each lifted attachment of a parse the span of its base64 in the mail', async () => {
    const raw = mail([textPart('hello'), attachment(big, { name: 'a' }), attachment(big2, { name: 'b' })]);
    const parsed = await parseMail(raw);
    expect(parsed.attachments.map((a) => Boolean(a.base64Span))).toEqual([true, true]);
    // Not decoded by the parse (a store that keeps the base64 never reads it): its content is decoded when first read.
    for (const a of parsed.attachments) expect(typeof Object.getOwnPropertyDescriptor(a, 'content')?.get).toBe('function');
    expect(parsed.attachments.map((a) => a.size)).toEqual([big.length, big2.length]);
    for (const a of parsed.attachments) expect(Buffer.from(raw.toString('latin1', a.base64Span!.start, a.base64Span!.end), 'base64').equals(a.content)).toBe(true);
  });

  it('lifts nothing from mail without such a part', () => {
    for (const raw of [...Object.values(real), left['spaces at line ends'], left['not multipart, all base64']]) expect(liftParts(raw)).toBeUndefined();
  });

  it('a forged token in a mail is not taken for a lifted body', async () => {
    // Tokens carry a per-process random part: a mail made of plausible tokens gets its own bytes back.
    const raw = mail([attachment(Buffer.alloc(24, 7), { name: 'tokenlike.bin' }), attachment(big)]);
    const parsed = await parseMail(raw);
    expect(parsed.attachments.map((a) => a.content.length)).toEqual([24, big.length]);
    expect(parsed.attachments[0].content.equals(Buffer.alloc(24, 7))).toBe(true);
  });
});
