/**
 * mailparser reads a mail with only its top-level structure fields (parse-mail.ts structureOnly: Content-*,
 * MIME-Version, Date), since headerFacts reads every other field itself. What ingest takes from mailparser (text,
 * HTML, attachments, date) must be what mailparser reads from the whole mail: checked on every client fixture and on
 * header blocks built to trip the cut (LF endings, folded fields, no header block, a field name that only starts like
 * one, thousands of address fields, a body line that looks like a header).
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { structureOnly } from '../../lambdas/ingest/parse-mail';

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
};

it.each(Object.keys(hostile))('reads a mail with %s as from the whole mail', async (name) => {
  await sameReading(Buffer.from(hostile[name], 'latin1'));
});

it('keeps the structure fields, folded ones whole, and the body byte for byte', () => {
  const raw = Buffer.from(`Received: by x\r\n\tfolded\r\nContent-Type: multipart/mixed;\r\n boundary="z"\r\nTo: b@example.com\r\nMIME-Version: 1.0\r\n\r\n${body}`, 'latin1');
  const cut = structureOnly(raw).toString('latin1');
  expect(cut).toBe(`Content-Type: multipart/mixed;\r\n boundary="z"\r\nMIME-Version: 1.0\r\n\r\n${body}`);
});
