/**
 * Issue 11, "Every 250 is a readable message": hostile and real-world mail over real SMTP into a stack of its own
 * (its log shows retries, its process shows CPU and memory, and its plan table has a limit of 1,000 mails a day for
 * the dev plan), read back over the API and its download links.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MESSAGE_CAPS } from '../../lambdas/core/limits';
import { SUBJECT_CUT_MARK } from '../../lambdas/core/message';
import { expectError, http } from '../support/http';
import { asSent, eventually, sendRaw, smtpSession } from '../support/mail';
import { cpuSeconds, poison, rssMb } from '../support/poison';
import { startStack, type StackHandle } from '../support/stack';
import { storesFor } from '../support/store';
import type { Json } from '../support/json';

let stack: StackHandle;
const IDLE_MS = 3_000;
const sha = (b: Buffer | Uint8Array | string) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  stack = await startStack({
    store: 'embedded',
    env: {
      TEMPMAIL_SMTP_SOCKET_TIMEOUT_MS: String(IDLE_MS),
      // The quota race: 1,000 mails a day for the dev account; its API budget is not what is tested here.
      TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ dev: { emails_per_day: 1_000, requests_per_minute: 60_000 } }),
    },
  });
}, 90_000);
afterAll(async () => {
  if (stack) await storesFor(stack).close();
  await stack?.stop();
});

const api = (on = stack) => http(on.apiUrl, on.keys.enterprise);

async function newInbox(key = stack.keys.enterprise, on = stack) {
  const reply = await http(on.apiUrl, key)('POST', '/v1/inboxes', {});
  expect(reply.status).toBe(201);
  return reply.body as { id: string; email: string };
}

async function firstMessage(inboxId: string, timeoutMs: number, on = stack) {
  const summary = await eventually(async () => (await api(on)('GET', `/v1/inboxes/${inboxId}/messages`)).body.messages?.[0], timeoutMs, `a message in ${inboxId}`);
  const full = await api(on)('GET', `/v1/inboxes/${inboxId}/messages/${summary.id}`);
  expect(full.status).toBe(200);
  return { summary, full: full.body };
}

function poisonSuite(current: () => StackHandle) {
  const checks: Record<keyof typeof poison, (full: Json, summary: Json) => void> = {
    longSubject(full, summary) {
      expect(full.subject.length).toBeGreaterThan(440_000);
      expect(full.subject.startsWith('w0xxx')).toBe(true);
      expect(summary.subject).toBe(full.subject.slice(0, MESSAGE_CAPS.summarySubjectChars - 1) + SUBJECT_CUT_MARK);
      expect(full.headers_truncated).toBe(true); // the Subject header's value in `headers` is cut
    },
    manyLinks(full) {
      expect(full.links).toHaveLength(MESSAGE_CAPS.links);
      expect(full.links[0]).toBe('https://links.example.com/p/0?ref=poison');
      expect(full.links_truncated).toBe(true);
      expect(full.text).toContain('link 24999');
    },
    manyAttachments(full) {
      expect(full.attachment_count).toBe(990);
      expect(full.attachments).toHaveLength(MESSAGE_CAPS.attachments);
      expect(full.attachments_truncated).toBe(true);
      expect(full.attachments[99].filename).toHaveLength(MESSAGE_CAPS.filenameChars);
      expect(full.attachments[99].filename).toMatch(/^0099-n+\.txt$/);
    },
    controlSubject(full, summary) {
      expect(full.subject.length).toBeGreaterThan(10_000);
      expect(full.subject).toMatch(/^[\u0001 ]+$/); // unfolded: a space where each line was folded
      expect(summary.subject).toBe(full.subject.slice(0, MESSAGE_CAPS.summarySubjectChars - 1) + SUBJECT_CUT_MARK);
      expect(full.text).toBe('control subject\n');
    },
    hugeContentType(full) {
      expect(full.subject).toBe('huge content type');
      expect(full.text).toBe('huge content type\r\n'); // the degraded form: the body as it came
    },
    nestedTables(full) {
      expect(full.text).toBe('Your code is 482913');
      expect(full.codes).toEqual(['482913']);
      expect(full.attachments).toHaveLength(1);
    },
    halfCharacterName(full) {
      expect(full.attachments).toHaveLength(1);
      expect(full.attachments[0].download_url).toMatch(/^http/);
    },
    manyHeaders(full) {
      expect(full.headers).toHaveLength(MESSAGE_CAPS.headers);
      expect(full.headers_truncated).toBe(true);
      expect(full.headers.slice(0, 5).map((h: { name: string }) => h.name)).toEqual(['Return-Path', 'Received', 'From', 'To', 'Subject']);
      expect(full.text).toBe('many headers\n');
    },
  };

  it.each(Object.keys(poison) as (keyof typeof poison)[])('%s: visible after its 250, raw intact, caps shown', async (kind) => {
    const stack = current();
    const inbox = await newInbox(stack.keys.enterprise, stack);
    const raw = poison[kind](inbox.email);
    const sent = await sendRaw(stack.smtpPort, [inbox.email], raw);
    expect(sent.response).toMatch(/^250 /);
    const accepted = Date.now();
    // How long it took is logged (a figure, not a pass mark: speed is measured by npm run bench).
    const { summary, full } = await firstMessage(inbox.id, 30_000, stack);
    console.log(`hostile mail: ${stack.store}: ${kind} (${(Buffer.byteLength(raw) / 1024).toFixed(0)} KB) visible ${Date.now() - accepted} ms after its 250`);
    // mailparser reads only the fields that shape the MIME structure (a 1.1 MB Subject is read by our own header
    // parse); past its 1 MB for one of those a mail is stored in its degraded form (headers, text, raw): readable still.
    if (kind === 'hugeContentType') expect(full.parse_error).toMatch(/could not be parsed/);
    else expect(full.parse_error).toBeNull();
    checks[kind](full, summary);
    // The wait endpoint answers with the same message (it answered 502, as GET did, when the message outgrew Lambda's answer).
    const waited = await api(stack)('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=5`);
    expect(waited.status).toBe(200);
    expect(waited.body.message.id).toBe(summary.id);
    for (const attachment of full.attachments.slice(0, 1)) expect((await fetch(attachment.download_url)).status).toBe(200);

    const rawReply = await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages/${summary.id}/raw`, { headers: { 'X-API-Key': stack.keys.enterprise } });
    expect(sha(asSent(Buffer.from(await rawReply.arrayBuffer())))).toBe(sha(raw));
    // The stored item is bounded whatever the mail held (DynamoDB refuses items over 400 KB).
    const record = await storesFor(stack).inboxes.getMessage(inbox.id, summary.id);
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThan(120 * 1024);
  });

  it('none was retried, and the stack is idle afterwards', async () => {
    const stack = current();
    expect(stack.output()).not.toMatch(/failed \(.*\); retrying/);
    const pid = stack.pid();
    const before = cpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 2_000));
    const used = cpuSeconds(pid) - before;
    console.log(`hostile mail: ${stack.store}: stack CPU ${(used * 50).toFixed(1)}% of a core over 2 s after the poison mail`);
    expect(used).toBeLessThan(0.2); // under 10% of one core
  });
}

describe('poison mail is stored at once, bounded, and never retried (embedded store)', () => poisonSuite(() => stack));

describe('poison mail on DynamoDB Local and the S3 server (where items stop at 400 KB)', () => {
  let dynamo: StackHandle;
  beforeAll(async () => {
    dynamo = await startStack({ store: 'dynamodb' });
  }, 90_000);
  afterAll(async () => {
    if (dynamo) await storesFor(dynamo).close();
    await dynamo?.stop();
  });
  poisonSuite(() => dynamo);
});

describe('SMTP limits', () => {
  it('3 parallel 300 MB DATA get 552, and the stack keeps its memory', async () => {
    const inbox = await newInbox();
    const pid = stack.pid();
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
    const replies = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const client = await smtpSession(stack.smtpPort);
        await client.say('EHLO big');
        await client.say('MAIL FROM:<big@example.com>');
        await client.say(`RCPT TO:<${inbox.email}>`);
        expect(await client.say('DATA')).toMatch(/^354/);
        const reply = await client.streamData(300 * 1024 * 1024);
        client.close();
        return reply;
      }),
    );
    clearInterval(sampler);
    console.log(`hostile mail: RSS ${before.toFixed(0)} MB before 3 × 300 MB DATA, peak ${peak.toFixed(0)} MB, after ${rssMb(pid).toFixed(0)} MB`);
    expect(replies.map((r) => r.slice(0, 3))).toEqual(['552', '552', '552']);
    // Bounded, not zero: the socket chunks are Buffers outside V8's heap, and V8 collects them only once about 64 MB of
    // them have been allocated since its last collection (its external-memory limit), so a peak of 40-48 MB over the
    // start is V8's rhythm, not retention (clean-clone runs: 40, 48, 48; a ceiling of 50 failed a CI run). Keeping each
    // sender's 40 MB in memory, as before the spool, would show 120 MB more; keeping the 300 MB, close to a GB.
    expect(peak - before).toBeLessThanOrEqual(100);
    expect((await api()('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(0);
  }, 180_000);

  it('10 parallel sessions × 110 mails against a limit of 1,000: exactly 1,000 × 250 and 1,000 stored, the rest 452', async () => {
    const inboxes = await Promise.all(Array.from({ length: 10 }, () => newInbox(stack.keys.dev)));
    const outcomes = await Promise.all(
      inboxes.map(async (inbox, s) => {
        const client = await smtpSession(stack.smtpPort);
        await client.say('EHLO quota');
        const replies: string[] = [];
        for (let i = 0; i < 110; i++) {
          await client.say('MAIL FROM:<q@example.com>');
          const rcpt = await client.say(`RCPT TO:<${inbox.email}>`);
          if (!rcpt.startsWith('250')) {
            replies.push(rcpt);
            await client.say('RSET');
            continue;
          }
          await client.say('DATA');
          replies.push(await client.say(`Subject: q ${s}.${i}\r\n\r\nx\r\n.`));
        }
        client.close();
        return replies;
      }),
    );
    const codes = outcomes.flat().map((r) => r.slice(0, 3));
    const count = (code: string) => codes.filter((c) => c === code).length;
    console.log(`hostile mail: quota race: ${count('250')} × 250, ${count('452')} × 452`);
    expect(count('250')).toBe(1_000);
    expect(count('452')).toBe(100);
    const dev = http(stack.apiUrl, stack.keys.dev);
    const stored = await eventually(
      async () => {
        const counts = await Promise.all(inboxes.map(async (i) => (await dev('GET', `/v1/inboxes/${i.id}`)).body.message_count as number));
        const total = counts.reduce((a, b) => a + b, 0);
        return total >= 1_000 ? total : null;
      },
      60_000,
      '1,000 stored',
    );
    await new Promise((r) => setTimeout(r, 1_000)); // anything past 1,000 would show by now
    const counts = await Promise.all(inboxes.map(async (i) => (await dev('GET', `/v1/inboxes/${i.id}`)).body.message_count as number));
    expect(stored).toBe(1_000);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(stack.output()).not.toMatch(/dropped \(quota\)/); // accepted, then refused where it is stored
  }, 180_000);

  it('600 connections from one address do not lock out another sender', async () => {
    const hog = await Promise.all(Array.from({ length: 600 }, () => smtpSession(stack.smtpPort, '127.0.0.1').catch(() => null)));
    const greetings = hog.map((c) => c?.greeting.slice(0, 3) ?? 'refused');
    const held = greetings.filter((g) => g === '220').length;
    console.log(`hostile mail: 600 connections from 127.0.0.1: ${held} held, ${greetings.filter((g) => g === '421').length} × 421`);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(100);
    try {
      const inbox = await newInbox();
      const other = await smtpSession(stack.smtpPort, '127.0.0.2');
      expect(other.greeting).toMatch(/^220/);
      await other.say('EHLO other');
      await other.say('MAIL FROM:<other@example.com>');
      expect(await other.say(`RCPT TO:<${inbox.email}>`)).toMatch(/^250/);
      await other.say('DATA');
      expect(await other.say('Subject: still served\r\n\r\nhello\r\n.')).toMatch(/^250/);
      other.close();
      expect((await firstMessage(inbox.id, 5_000)).summary.subject).toBe('still served');
    } finally {
      for (const c of hog) c?.close();
    }
  }, 60_000);

  it('a session that sends no mail is closed after the idle time, however many NOOPs it sends', async () => {
    const client = await smtpSession(stack.smtpPort);
    await client.say('EHLO noop');
    const started = Date.now();
    const noops = setInterval(() => client.socket.writable && client.socket.write('NOOP\r\n'), 300);
    // NOOPs every 300 ms would keep a session that counts them as activity open for ever: closing at all proves it.
    await Promise.race([client.closed, new Promise((r) => setTimeout(r, IDLE_MS * 10))]);
    clearInterval(noops);
    expect(client.socket.destroyed || client.socket.readableEnded).toBe(true);
    console.log(`idle session closed after ${Date.now() - started} ms (idle time ${IDLE_MS} ms)`);
  }, 30_000);
});

describe('reserved local parts', () => {
  it.each(['postmaster', 'abuse', 'admin', 'administrator', 'hostmaster', 'webmaster', 'root', 'security', 'noc', 'mailer-daemon', 'no-reply', 'noreply', 'do-not-reply', 'PostMaster', 'no.reply'])(
    '%s: 400 with the reason',
    async (username) => {
      const message = expectError(await api()('POST', '/v1/inboxes', { username, domain: 'inbox.test' }), 400);
      expect(message).toMatch(/^username ".+" is reserved: /);
    },
  );

  it('names that only look alike are free', async () => {
    for (const username of ['postmaster2', 'admins', 'rooted']) expect((await api()('POST', '/v1/inboxes', { username: `${username}${Date.now() % 100_000}` })).status).toBe(201);
  });
});

describe('stored content is served as data', () => {
  it('attachment and raw downloads: attachment disposition, safe types, nosniff, no-store', async () => {
    const inbox = await newInbox();
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const raw = [
      `From: a@example.com`,
      `To: ${inbox.email}`,
      `Subject: downloads`,
      `MIME-Version: 1.0`,
      `Content-Type: multipart/mixed; boundary="b"`,
      ``,
      `--b`,
      `Content-Type: text/plain`,
      ``,
      `see the parts`,
      `--b`,
      `Content-Type: text/html`,
      `Content-Disposition: attachment`,
      ``,
      `<script>alert(document.cookie)</script>`,
      `--b`,
      `Content-Type: image/svg+xml; name="logo.svg"`,
      `Content-Disposition: attachment; filename="logo.svg"`,
      ``,
      `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`,
      `--b`,
      `Content-Type: application/x-unknown`,
      `Content-Disposition: attachment`,
      ``,
      `no name at all`,
      `--b`,
      `Content-Type: text/html; name="x.html"`,
      `Content-Disposition: attachment; filename="../../x.html"`,
      ``,
      `<h1>page</h1>`,
      `--b`,
      `Content-Type: image/png; name="pic.png"`,
      `Content-Disposition: inline; filename="pic.png"`,
      `Content-Transfer-Encoding: base64`,
      ``,
      png.toString('base64'),
      `--b--`,
      ``,
    ].join('\r\n');
    await sendRaw(stack.smtpPort, [inbox.email], raw);
    const { summary, full } = await firstMessage(inbox.id, 5_000);
    const served = await Promise.all(
      full.attachments.map(async (a: { download_url: string }) => {
        const res = await fetch(a.download_url);
        return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), nosniff: res.headers.get('x-content-type-options') };
      }),
    );
    expect(served).toEqual([
      { status: 200, type: 'application/octet-stream', disposition: 'attachment; filename="att_1"; filename*=UTF-8\'\'att_1', nosniff: 'nosniff' },
      { status: 200, type: 'application/octet-stream', disposition: 'attachment; filename="logo.svg"; filename*=UTF-8\'\'logo.svg', nosniff: 'nosniff' },
      { status: 200, type: 'application/octet-stream', disposition: 'attachment; filename="att_3"; filename*=UTF-8\'\'att_3', nosniff: 'nosniff' },
      { status: 200, type: 'application/octet-stream', disposition: 'attachment; filename="x.html"; filename*=UTF-8\'\'x.html', nosniff: 'nosniff' },
      { status: 200, type: 'image/png', disposition: 'inline; filename="pic.png"; filename*=UTF-8\'\'pic.png', nosniff: 'nosniff' },
    ]);

    const rawReply = await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages/${summary.id}/raw`, { headers: { 'X-API-Key': stack.keys.enterprise } });
    expect(rawReply.status).toBe(200);
    expect(rawReply.headers.get('content-type')).toBe('message/rfc822');
    expect(rawReply.headers.get('content-disposition')).toBe(`attachment; filename="${summary.id}.eml"; filename*=UTF-8''${summary.id}.eml`);
    expect(rawReply.headers.get('cache-control')).toBe('no-store');
    expect(rawReply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(sha(asSent(Buffer.from(await rawReply.arrayBuffer())))).toBe(sha(raw));
    expect((await api()('GET', `/v1/inboxes/${inbox.id}`)).headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe("real clients' mail over SMTP", () => {
  const dir = path.join(__dirname, '..', 'fixtures', 'mail');
  const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Record<
    string,
    { subject: string; from: string; from_name: string | null; text_start: string; attachments: (string | null)[]; codes?: string[] }
  >;

  it.each(Object.keys(expected))('%s reads back as its client shows it', async (file) => {
    const want = expected[file];
    const inbox = await newInbox();
    await sendRaw(stack.smtpPort, [inbox.email], fs.readFileSync(path.join(dir, file)));
    const { summary, full } = await firstMessage(inbox.id, 5_000);
    expect(summary).toMatchObject({ subject: want.subject, from: want.from, from_name: want.from_name });
    expect(full.text.replace(/[ \t]+\n/g, '\n').trimStart().startsWith(want.text_start)).toBe(true);
    expect(full.attachments.map((a: { filename: string | null }) => a.filename)).toEqual(want.attachments);
    if (want.codes) expect(full.codes[0]).toBe(want.codes[0]);
    expect(full.parse_error).toBeNull();
  });
});
