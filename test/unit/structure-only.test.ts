/**
 * mailparser reads a mail with only its top-level structure fields (parse-mail.ts structureOnly: Content-*,
 * MIME-Version, Date), since headerFacts reads every other field itself. What ingest takes from mailparser (text,
 * HTML, attachments, date) must be what mailparser reads from the whole mail: checked on every client fixture and on
 * header blocks built to trip the cut (LF endings, folded fields, no header block, a field name that only starts like
 * one, thousands of address fields, a body line that looks like a header, names mailparser trims). A header block
 * that is not plain is not cut, and the UTF-7 rewrite path reads the cut mail too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { parseMail, structureOnly } from '../../lambdas/ingest/parse-mail';

const OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true, checksumAlgo: false } as const;

/** What ingest reads from mailparser's result. */
const used = (mail: ParsedMail) => ({
  text: mail.text,
  html: mail.html,
  date: mail.date?.getTime(),
  attachments: mail.attachments.map((a) => [a.filename, a.contentType, a.cid, a.contentDisposition, a.content.toString('base64')]),
});

const sameReading = async (raw: Buffer) => expect(used(await simpleParser(structureOnly(raw), OPTIONS))).toEqual(used(await simpleParser(raw, OPTIONS)));

const dir = path.join(__dirname, '..', 'fixtures', 'mail');
const fixtures = fs.readdirSync(dir).filter((name) => name.endsWith('.eml'));

it.each(fixtures)('reads %s as from the whole mail', async (name) => {
  await sameReading(fs.readFileSync(path.join(dir, name)));
});

const body = 'Your code is 123456.\r\nFrom: not a header <x@example.com>\r\nContent-Type: text/html\r\n\r\n<b>still the body</b>\r\n';
const hostile: Record<string, string> = {
  'LF line endings': 'From: a@example.com\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\ncaf=E9 au lait\n',
  'a folded Content-Type last before the body': `Subject: x\r\nContent-Type: multipart/alternative;\r\n\tboundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nplain\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>html</p>\r\n--b--\r\n`,
  'no header block': `\r\n${body}`,
  'no structure field at all': `From: a@example.com\r\nSubject: hi\r\n\r\n${body}`,
  'only a body-like first line': `Hello there\n\n${body}`,
  'a field that only starts like one': `Content-Typo: text/html\r\nContent-Type: text/plain\r\nDate-Sent: never\r\nDate: Fri, 27 Nov 2026 08:00:00 +0000\r\n\r\n${body}`,
  'a blank line of CR LF after LF fields': `From: a@example.com\nContent-Type: text/html\n\r\n<p>${body}</p>`,
  'thousands of address fields': `${Array.from({ length: 3_000 }, (_, i) => `To: "Person ${i}" <p${i}@example.com>, =?utf-8?q?=E2=9C=93?= <q${i}@example.com>`).join('\r\n')}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}`,
  'a single-part attachment': `From: a@example.com\r\nContent-Type: application/pdf; name="a.pdf"\r\nContent-Disposition: attachment; filename="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJcfs\r\n`,
  // Names mailparser trims (JavaScript's trim: VT, FF, CR, NBSP too) or takes from a line that looks folded (review 36).
  'a first line starting with a space': ' Content-Type: text/html\r\nSubject: x\r\n\r\n<b>hi</b>\r\n',
  'a first line starting with a tab': '\tContent-Type: text/html\r\nSubject: x\r\n\r\n<b>hi</b>\r\n',
  'a vertical tab before a name': 'Subject: x\r\n\x0bContent-Type: text/html\r\n\r\n<b>hi</b>\r\n',
  'a form feed before a name': 'Subject: x\r\n\x0cContent-Type: text/html\r\n\r\n<b>hi</b>\r\n',
  'a CR before a name': 'Subject: x\r\n\rContent-Type: text/html\r\n\r\n<b>hi</b>\r\n',
  'a no-break space before a name': 'Subject: x\r\n\xa0Content-Type: text/html\r\n\r\n<b>hi</b>\r\n',
  'a CR line, then a folded name': 'Subject: x\r\n\r\r\n\tContent-Type: text/html\r\n\r\n<b>hi</b>\r\n',
  'a multipart Content-Type behind a vertical tab': 'Subject: x\r\n\x0bContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nplain\r\n--b\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--b--\r\n',
  'a Date behind a vertical tab': 'Subject: x\r\n\x0bDate: Fri, 01 Jan 2021 00:00:00 +0000\r\n\r\nhi\r\n',
  'a space before the colon': 'Content-Type  : text/html\r\n\r\n<b>hi</b>\r\n',
  'an mbox From line': 'From someone Fri Jan 1\r\nContent-Type: text/html\r\n\r\n<b>hi</b>\r\n',
  'bare CR line ends': 'Subject: x\rContent-Type: text/html\r\n\r\n<b>hi</b>\r\n',
  'two Content-Type fields': 'Content-Type: text/plain\r\nX: y\r\nContent-Type: text/html\r\n\r\n<b>hi</b>\r\n',
};

it.each(Object.keys(hostile))('reads a mail with %s as from the whole mail', async (name) => {
  await sameReading(Buffer.from(hostile[name], 'latin1'));
});

it('keeps the structure fields, folded ones whole, and the body byte for byte', () => {
  const raw = Buffer.from(`Received: by x\r\n\tfolded\r\nContent-Type: multipart/mixed;\r\n boundary="z"\r\nTo: b@example.com\r\nMIME-Version: 1.0\r\n\r\n${body}`, 'latin1');
  const cut = structureOnly(raw).toString('latin1');
  expect(cut).toBe(`Content-Type: multipart/mixed;\r\n boundary="z"\r\nMIME-Version: 1.0\r\n\r\n${body}`);
});

it('reads a header block that is not plain (a field name mailparser would trim) whole, uncut', () => {
  const raw = Buffer.from(hostile['a vertical tab before a name'], 'latin1');
  expect(structureOnly(raw)).toBe(raw);
});

it.each(['text/plain; charset=utf-8', 'text/plain; charset=utf-7', 'text'])(
  'parses a mail with a 1.1 MB Subject whole, also where its parts are rewritten first (Content-Type: %s)',
  async (contentType) => {
    const lines = Array.from({ length: 1_100 }, () => 'x'.repeat(1_000));
    const raw = Buffer.from(`From: a@example.com\r\nSubject: ${lines.join('\r\n ')}\r\nContent-Type: ${contentType}\r\n\r\nhello +AKM-\r\n`, 'latin1');
    const parsed = await parseMail(raw);
    expect(parsed.parse_error).toBeNull();
    expect(parsed.subject.length).toBeGreaterThan(1_000_000);
    expect(parsed.text).toBe(contentType.endsWith('utf-7') ? 'hello £\n' : 'hello +AKM-\n');
  },
);
