/**
 * The local stack parses large mail on a worker thread (lambdas/ingest/parse-thread.ts; issue 27 item 2): three
 * 38 MB mails once held the API 1.7–1.8 s again and again, mailparser's whole-mail steps running on the one event loop.
 * Checked here: the stack's parser gives the very parse parse-mail.ts gives in-process, attachments as Buffers; small
 * mail stays in-process; the event loop keeps turning while a large mail is parsed (counted in turns, not time:
 * the in-process parse lets it turn only between its stream's steps); a worker lost mid-parse gives the minimal form.
 * A body longer than extraction reads comes back held (HeldText): its JSON bytes and its head, never the string, which
 * cost the event loop 150–320 ms for 38 MB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { EXTRACT_SCAN_CHARS } from '../../lambdas/core/extract';
import { jsonInSlices } from '../../lambdas/core/json-slices';
import { BODY_KEPT_CHARS, cut } from '../../lambdas/core/message';
import { isHeld, type MailText } from '../../lambdas/core/mail-text';
import type { InProcessParse, ParsedMail } from '../../lambdas/core/ports';
import { parseMail } from '../../lambdas/ingest/parse-mail';
import { THREAD_PARSE_MIN_BYTES, ThreadedMailParser } from '../../lambdas/ingest/parse-thread';
import { turnsDuring } from '../support/event-loop';

jest.setTimeout(180_000);

const line = `${'x'.repeat(998)}\r\n`;
const attachment = Buffer.alloc(3 * 1024 * 1024, 7);
/** About 8 MB: 4 MB of text and a 3 MB attachment in base64. */
const large = Buffer.from(
  'From: Sender <sender@example.com>\r\nSubject: large\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=BB\r\n\r\n' +
    `--BB\r\nContent-Type: text/plain\r\n\r\n${line.repeat(4096)}\r\n` +
    `--BB\r\nContent-Type: application/octet-stream; name=a.bin\r\nContent-Transfer-Encoding: base64\r\n\r\n${attachment.toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n--BB--\r\n`,
);

/** A parse with its held bodies checked against the in-process parse's strings, then replaced by them. */
function unheld(parsed: ParsedMail, inProcess: InProcessParse): InProcessParse {
  const check = (got: MailText, whole: string): string => {
    if (!isHeld(got)) return got;
    expect(got.length).toBe(whole.length);
    expect(got.head).toBe(whole.slice(0, EXTRACT_SCAN_CHARS));
    // The JSON of what a message keeps of it: its first BODY_KEPT_CHARS characters.
    expect(Buffer.from(got.json).equals(Buffer.from(JSON.stringify(cut(whole, BODY_KEPT_CHARS)).slice(1, -1)))).toBe(true);
    return whole;
  };
  return { ...parsed, text: check(parsed.text, inProcess.text), html: check(parsed.html, inProcess.html) };
}

describe("the local stack's mail parser", () => {
  let dataDir: string;
  beforeAll(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-parse-thread-'))));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('parses a large mail off the event loop, to the same parse as in-process', async () => {
    expect(large.length).toBeGreaterThanOrEqual(THREAD_PARSE_MIN_BYTES);
    const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1:9' } }));
    try {
      const inProcess = await turnsDuring(() => parseMail(large, {}));
      const stack = await turnsDuring(() => ctx.mail.parse(large, {}));
      expect(isHeld(stack.result.text)).toBe(true); // 4 MB of text: longer than extraction reads
      expect(unheld(stack.result, inProcess.result)).toEqual(inProcess.result);
      expect(stack.result.parse_error).toBeNull();
      expect(Buffer.isBuffer(stack.result.attachments[0].content)).toBe(true);
      expect(stack.result.attachments[0].content.equals(attachment)).toBe(true);
      // In-process the loop turns only between the parser's stream steps; on a thread it is free the whole time.
      expect(stack.turns).toBeGreaterThan(10 * inProcess.turns);
    } finally {
      await (ctx.mail as ThreadedMailParser).close?.();
      await ctx.stores.close();
    }
  });

  it('holds long text and HTML bodies as their JSON bytes, escapes and all, and the body object is JSON.stringify of what a message keeps of the strings', async () => {
    const awkward = 'quote " backslash \\ tab \t bell \u0007 é 日本 😀 \u2028 ';
    const text = awkward.repeat(Math.ceil((EXTRACT_SCAN_CHARS + 1000) / awkward.length));
    const html = `<p>${'<a href="https://example.com/x">x</a> é 😀 '.repeat(60_000)}</p>`;
    const mail = Buffer.from(
      'From: a@example.com\r\nSubject: held\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=AA\r\n\r\n' +
        `--AA\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(text).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n` +
        `--AA\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(html).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n--AA--\r\n`,
    );
    const parser = new ThreadedMailParser();
    try {
      const inProcess = await parseMail(mail, {});
      const threaded = await parser.parse(mail, {});
      expect(parser.threaded).toBe(1);
      expect(isHeld(threaded.text)).toBe(true);
      expect(isHeld(threaded.html)).toBe(true);
      expect(unheld(threaded, inProcess)).toEqual(inProcess);
      // What ingest writes as the body object, from the held bytes, is the strings' JSON.
      const body = Buffer.concat(await jsonInSlices({ text: threaded.text, html: threaded.html, codes: [] }));
      expect(body.toString()).toBe(JSON.stringify({ text: cut(inProcess.text, BODY_KEPT_CHARS), html: cut(inProcess.html, BODY_KEPT_CHARS), codes: [] }));
    } finally {
      await parser.close();
    }
  });

  it('keeps small mail in-process, and reads a mail minimally when its thread is lost mid-parse', async () => {
    const parser = new ThreadedMailParser();
    try {
      const small = Buffer.from('From: a@example.com\r\nSubject: small\r\n\r\nhello\r\n');
      expect(await parser.parse(small, {})).toEqual(await parseMail(small, {}));
      expect(parser.threaded).toBe(0);

      const lost = parser.parse(large, { envelopeFrom: 'bounce@example.com' });
      await parser.close();
      const minimal = await lost;
      expect(parser.threaded).toBe(1);
      expect(minimal.parse_error).toMatch(/could not be parsed \(the parser was closed\)/);
      expect(minimal.subject).toBe('large');
      expect(minimal.attachments).toEqual([]);

      // The next large mail gets a new thread.
      const again = await parser.parse(large, {});
      expect(again.parse_error).toBeNull();
      expect(again.attachments[0].content.equals(attachment)).toBe(true);
    } finally {
      await parser.close();
    }
  });
});
