/**
 * The decoding of real clients' mail: each fixture under test/fixtures/mail/ is hand-written in the format of the
 * client named in expected.json (headers, boundaries, encodings as that client writes them), and parse-mail must
 * read from it the subject, sender, text and attachment names a person sees in that client. The fixtures cover the
 * decoding classes of issue 11: UTF-7, raw 8-bit bytes in headers and inside encoded words, RFC 2231 and raw 8-bit
 * attachment names, a Content-Type without subtype, and text (with codes and links) derived from HTML-only mail.
 */
import fs from 'node:fs';
import path from 'node:path';
import { extractCodes, extractLinks } from '../../lambdas/core/extract';
import { parseMail } from '../../lambdas/ingest/parse-mail';
import expected from '../fixtures/mail/expected.json';

interface Expectation {
  client: string;
  subject: string;
  from: string;
  from_name: string | null;
  text_start: string;
  text_contains?: string;
  attachments: (string | null)[];
  cc?: string[];
  reply_to?: string[];
  in_reply_to?: string;
  codes?: string[];
  links?: string[];
}

const dir = path.join(__dirname, '..', 'fixtures', 'mail');
const cases = Object.entries(expected as Record<string, Expectation>);

it('every fixture has its expectation, and every expectation its fixture', () => {
  expect(fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).sort()).toEqual(cases.map(([file]) => file).sort());
});

describe.each(cases)('%s', (file, want) => {
  let mail: Awaited<ReturnType<typeof parseMail>>;
  beforeAll(async () => {
    mail = await parseMail(fs.readFileSync(path.join(dir, file)));
  });

  it(`decodes as ${want.client.split(':')[0]} shows it`, () => {
    expect(mail.parse_error).toBeNull();
    expect(mail.subject).toBe(want.subject);
    expect(mail.from).toBe(want.from);
    expect(mail.from_name).toBe(want.from_name);
    expect(mail.text.replace(/\r\n/g, '\n').replace(/[ \t]+\n/g, '\n').trimStart().startsWith(want.text_start)).toBe(true);
    if (want.text_contains) expect(mail.text).toContain(want.text_contains);
    expect(mail.attachments.map((a) => a.filename)).toEqual(want.attachments);
    if (want.cc) expect(mail.cc).toEqual(want.cc);
    if (want.reply_to) expect(mail.reply_to).toEqual(want.reply_to);
    if (want.in_reply_to) expect(mail.in_reply_to).toBe(want.in_reply_to);
    // Nothing is left encoded, half-decoded or replaced.
    for (const value of [mail.subject, mail.from_name ?? '', mail.text, ...mail.attachments.map((a) => a.filename ?? '')]) {
      expect(value).not.toMatch(/=\?[^?]+\?[bq]\?|\ufffd|Ã.|\+A[A-Za-z0-9]{2}-/i);
    }
    expect(mail.headers.find((h) => h.name.toLowerCase() === 'subject')?.value).toBe(want.subject);
  });

  if (want.codes || want.links) {
    it('yields its codes and links', () => {
      if (want.codes) expect(extractCodes(mail.subject, mail.text).slice(0, want.codes.length)).toEqual(want.codes);
      if (want.links) expect(extractLinks(mail.html, mail.text)).toEqual(want.links);
    });
  }
});

it('makes every string well-formed Unicode: half a UTF-16 character becomes U+FFFD, in headers, names and bodies', async () => {
  const raw = Buffer.from(
    [
      'From: =?utf-16be?b?2D0AQQ==?= <a@example.com>',
      'Subject: =?utf-16be?b?2D0AQQ==?=',
      'X-Half: =?utf-16le?b?AN4=?=',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain; charset=utf-16be',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from([0xd8, 0x3d, 0x00, 0x41]).toString('base64'),
      '--b',
      'Content-Type: application/octet-stream',
      'Content-Disposition: attachment; filename="=?utf-16be?b?2D0=?=.bin"',
      '',
      'DATA',
      '--b--',
      '',
    ].join('\r\n'),
  );
  const parsed = await parseMail(raw);
  expect(parsed.subject).toBe('\ufffdA');
  expect(parsed.from_name).toBe('\ufffdA');
  expect(parsed.text.startsWith('\ufffdA')).toBe(true);
  expect(parsed.attachments[0].filename).toBe('\ufffd.bin');
  expect(JSON.stringify(parsed)).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
});
