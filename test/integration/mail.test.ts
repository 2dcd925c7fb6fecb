/** Receiving mail: real SMTP (nodemailer and raw sessions) into the shared local stack, read back over the API. */
import { createHash } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { expectError, http } from '../support/http';
import { asSent, eventually, sendMail, sendRaw, smtpSession } from '../support/mail';
import { sharedStack } from '../support/shared';
import { storesFor } from '../support/store';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const store = storesFor(stack);
const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');
const name = (p: string) => `${p}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function newInbox(body: Record<string, unknown> = {}) {
  const reply = await api('POST', '/v1/inboxes', body);
  expect(reply.status).toBe(201);
  return reply.body as { id: string; email: string };
}

async function messages(inboxId: string, count: number) {
  return eventually(async () => {
    const reply = await api('GET', `/v1/inboxes/${inboxId}/messages`);
    return reply.body.messages?.length >= count ? reply.body : null;
  }, 15_000, `${count} message(s) in ${inboxId}`);
}

async function onlyMessage(inboxId: string) {
  const list = await messages(inboxId, 1);
  return (await api('GET', `/v1/inboxes/${inboxId}/messages/${list.messages[0].id}`)).body;
}

describe('a multipart mail with two attachments', () => {
  it('lists and reads back exactly, attachments and raw byte-equal', async () => {
    const inbox = await newInbox();
    const pdf = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) % 256));
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const composed = await new MailComposer({
      from: 'Ada Lovelace <ada@example.com>',
      to: inbox.email,
      subject: 'Quarterly report',
      text: 'Hello,\nthe report is attached.\n',
      html: '<p>Hello,</p><p>the report is <b>attached</b>. <img src="cid:logo@x"></p>',
      attachments: [
        { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'logo.png', content: png, contentType: 'image/png', cid: 'logo@x' },
      ],
    })
      .compile()
      .build();
    // Sent by hand so the bytes are known exactly: the server receives the message plus the CRLF that ends its
    // last line before the terminating dot.
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO test');
    await session.say('MAIL FROM:<ada@example.com>');
    await session.say(`RCPT TO:<${inbox.email}>`);
    await session.say('DATA');
    expect(await session.data(composed)).toMatch(/^250 /);
    session.close();
    const raw = Buffer.concat([composed, Buffer.from('\r\n')]);

    const list = await messages(inbox.id, 1);
    expect(list.total).toBe(1);
    expect(list.messages[0]).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-z]{26}$/),
      from: 'ada@example.com',
      from_name: 'Ada Lovelace',
      subject: 'Quarterly report',
      received_at: expect.stringMatching(/Z$/),
      size: expect.any(Number), // the stored raw's: checked below
      envelope: { from: 'ada@example.com', to: inbox.email },
    });
    const id = list.messages[0].id;
    const full = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${id}`)).body;
    expect(full).toEqual({
      id,
      from: 'ada@example.com',
      from_name: 'Ada Lovelace',
      to: inbox.email,
      envelope: { from: 'ada@example.com', to: inbox.email },
      subject: 'Quarterly report',
      text: 'Hello,\nthe report is attached.\n',
      html: '<p>Hello,</p><p>the report is <b>attached</b>. <img src="cid:logo@x"></p>',
      body_truncated: false,
      received_at: list.messages[0].received_at,
      size: list.messages[0].size,
      attachments: [
        // In MIME order: the inline image sits in multipart/related with the HTML, before the mixed attachment.
        { id: 'att_1', filename: 'logo.png', content_type: 'image/png', size: png.length, content_id: 'logo@x', download_url: expect.stringMatching(/^http/) },
        { id: 'att_2', filename: 'report.pdf', content_type: 'application/pdf', size: pdf.length, content_id: null, download_url: expect.stringMatching(/^http/) },
      ],
      attachment_count: 2,
      attachments_truncated: false,
      codes: [],
      links: [],
      links_truncated: false,
      verification: { codes: [], links: [], links_truncated: false },
      cc: [],
      reply_to: [],
      message_id: expect.stringMatching(/^<.+@example\.com>$/),
      in_reply_to: null,
      headers: expect.arrayContaining([{ name: 'Subject', value: 'Quarterly report' }, { name: 'From', value: 'Ada Lovelace <ada@example.com>' }]),
      headers_truncated: false,
      auth: { spf: 'DISABLED', dkim: 'DISABLED', dmarc: 'DISABLED', spam: 'DISABLED', virus: 'DISABLED' },
      parse_error: null,
    });
    for (const [i, expected] of [png, pdf].entries()) {
      const res = await fetch(full.attachments[i].download_url);
      expect(res.status).toBe(200);
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(expected));
    }
    const rawReply = await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages/${id}/raw`, { headers: { 'X-API-Key': stack.keys.enterprise } });
    expect(rawReply.status).toBe(200);
    expect(rawReply.headers.get('content-type')).toBe('message/rfc822');
    const stored = Buffer.from(await rawReply.arrayBuffer());
    expect(sha(asSent(stored))).toBe(sha(raw));
    expect(full.size).toBe(stored.length);
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(1);
  });
});

describe('encodings', () => {
  const cases: [string, string, string, string][] = [
    ['UTF-8 B subject', 'Subject: =?UTF-8?B?w5xiZXJwcsO8ZnVuZyDinJM=?=\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nok\r\n', 'Überprüfung ✓', 'ok'],
    ['UTF-8 Q subject', 'Subject: =?UTF-8?Q?Caf=C3=A9_cr=C3=A8me?=\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nok\r\n', 'Café crème', 'ok'],
    ['ISO-8859-1 subject', 'Subject: =?ISO-8859-1?Q?Gr=FC=DFe?=\r\nContent-Type: text/plain\r\n\r\nok\r\n', 'Grüße', 'ok'],
    ['quoted-printable body', 'Subject: qp\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nna=C3=AFve caf=C3=A9 =\r\nsoft break\r\n', 'qp', 'naïve café soft break'],
    ['base64 body', 'Subject: b64\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n5pel5pys6Kqe44Go5Lit5paH\r\n', 'b64', '日本語と中文'],
    ['ISO-8859-1 body', 'Subject: latin1\r\nContent-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nSch=F6ne Gr=FC=DFe\r\n', 'latin1', 'Schöne Grüße'],
    ['windows-1252 body', 'Subject: cp1252\r\nContent-Type: text/plain; charset=windows-1252\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=93quoted=94 =80 5\r\n', 'cp1252', '“quoted” € 5'],
    ['Shift_JIS body', 'Subject: sjis\r\nContent-Type: text/plain; charset=Shift_JIS\r\nContent-Transfer-Encoding: base64\r\n\r\ngrGC8YLJgr+CzQ==\r\n', 'sjis', 'こんにちは'],
  ];
  it.each(cases)('%s decodes right', async (_label, mime, subject, text) => {
    const inbox = await newInbox();
    await sendRaw(stack.smtpPort, [inbox.email], `From: a@example.com\r\nTo: ${inbox.email}\r\nMIME-Version: 1.0\r\n${mime}`);
    const full = await onlyMessage(inbox.id);
    expect(full.subject).toBe(subject);
    expect(full.text.trim()).toBe(text);
  });
});

describe('malformed MIME never crashes ingest', () => {
  const cases: [string, () => string | Buffer, (m: { subject: string; text: string; body_truncated: boolean }) => void][] = [
    ['missing boundary', () => 'Subject: nob\r\nContent-Type: multipart/mixed\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nhello\r\n--x--\r\n', (m) => expect(m.subject).toBe('nob')],
    ['wrong boundary', () => 'Subject: wrongb\r\nContent-Type: multipart/mixed; boundary="abc"\r\n\r\n--xyz\r\nContent-Type: text/plain\r\n\r\nhello\r\n--xyz--\r\n', (m) => expect(m.subject).toBe('wrongb')],
    ['broken base64', () => 'Subject: b64\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not*base64@@@\r\n', (m) => expect(m.subject).toBe('b64')],
    ['1,000 nested parts', () => {
      let body = 'Content-Type: text/plain\r\n\r\ndeep\r\n';
      for (let i = 0; i < 1000; i++) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}\r\n--b${i}--\r\n`;
      return `Subject: nested\r\n${body}`;
    }, (m) => expect(m.subject).toBe('nested')],
    ['headers only', () => 'Subject: headers only\r\nX-A: b\r\n', (m) => expect(m.subject).toBe('headers only')],
    ['empty body', () => 'Subject: empty\r\n\r\n', (m) => expect(m.text).toBe('')],
    ['NUL bytes', () => Buffer.from('Subject: nul\r\nContent-Type: text/plain\r\n\r\nab\u0000cd\r\n', 'latin1'), (m) => expect(m.subject).toBe('nul')],
    ['a 10 MB line', () => `Subject: long line\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(10 * 1024 * 1024)}\r\n`, (m) => {
      expect(m.subject).toBe('long line');
      expect(m.body_truncated).toBe(true); // Lambda answers at most 6 MB: the text is cut, the raw download has it all
      expect(m.text).toMatch(/^x{1000000,}$/);
    }],
  ];
  it.each(cases)('%s: stored with best-effort content and its raw form', async (_label, make, check) => {
    const inbox = await newInbox();
    const raw = Buffer.from(make() as string);
    await sendRaw(stack.smtpPort, [inbox.email], raw);
    const full = await onlyMessage(inbox.id);
    check(full);
    const rawReply = await fetch(`${stack.apiUrl}/v1/inboxes/${inbox.id}/messages/${full.id}/raw`, { headers: { 'X-API-Key': stack.keys.enterprise } });
    expect(sha(asSent(Buffer.from(await rawReply.arrayBuffer())))).toBe(sha(raw));
  }, 60_000);
});

describe('a long body', () => {
  // Past 2 M characters (what extraction reads), the local form's parse thread sends it back held (its JSON bytes and
  // its head), never as a string on the event loop: it is stored, escapes and all, and its code and link found. The
  // answer cuts each body to its share of Lambda's 6 MB (body_truncated); parse-thread.test checks the whole bytes.
  it('is stored, with the code and link of its start', async () => {
    const inbox = await newInbox();
    const text = `Your code is 482913. Open https://example.com/verify?t=1\r\n${'quote " backslash \\ tab \t é 日本 😀 \u2028\r\n'.repeat(80_000)}`;
    const mime = `From: a@example.com\r\nTo: ${inbox.email}\r\nSubject: long body\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n`;
    await sendRaw(stack.smtpPort, [inbox.email], `${mime}${Buffer.from(text).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n`);
    const full = await onlyMessage(inbox.id);
    expect(full.body_truncated).toBe(true);
    expect(full.text.length).toBeGreaterThan(300_000);
    expect(text.replace(/\r\n/g, '\n').startsWith(full.text)).toBe(true);
    expect(full.codes).toEqual(['482913']);
    expect(full.links).toEqual(['https://example.com/verify?t=1']);
  }, 120_000);
});

describe('routing', () => {
  it('delivers one mail to three of our inboxes (to, cc, bcc) once each, across domains', async () => {
    const [a, b, c] = [await newInbox(), await newInbox({ domain: 'inbox.test' }), await newInbox({ domain: 'mailbox.test' })];
    await sendMail(stack.smtpPort, { to: a.email, cc: b.email, bcc: c.email, subject: 'fan-out', text: 'hi' });
    for (const inbox of [a, b, c]) {
      const list = await messages(inbox.id, 1);
      expect(list.total).toBe(1);
      const full = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${list.messages[0].id}`)).body;
      expect(full.to).toBe(inbox.email);
      expect(full.subject).toBe('fan-out');
    }
  });

  it('delivers sub-addresses to the inbox, once per message even when several are addressed', async () => {
    const inbox = await newInbox({ username: name('sub') });
    const [user, domain] = inbox.email.split('@');
    await sendMail(stack.smtpPort, { to: [`${user}+one@${domain}`, `${user.toUpperCase()}+two@${domain.toUpperCase()}`], subject: 'tagged', text: 'x' });
    await sendMail(stack.smtpPort, { to: `${user}+three@${domain}`, subject: 'tagged again', text: 'x' });
    const list = await messages(inbox.id, 2);
    expect(list.total).toBe(2);
    expect(list.messages.map((m: { subject: string }) => m.subject)).toEqual(['tagged again', 'tagged']);
  });

  it('refuses unknown inboxes and other domains with 550 at RCPT', async () => {
    const session = await smtpSession(stack.smtpPort);
    expect(await session.say('EHLO test')).toMatch(/^250 /);
    expect(await session.say('MAIL FROM:<a@example.com>')).toMatch(/^250 /);
    expect(await session.say(`RCPT TO:<${name('nobody')}@tempmail.local>`)).toMatch(/^550 /);
    expect(await session.say('RCPT TO:<someone@gmail.com>')).toMatch(/^550 /);
    session.close();
  });

  it('refuses deleted and expired inboxes with 550', async () => {
    const deleted = await newInbox();
    await api('DELETE', `/v1/inboxes/${deleted.id}`);
    const expired = await newInbox({ ttl: 60 });
    await store.setExpiry(expired.id, expired.email, Math.floor(Date.now() / 1000) - 1);
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO test');
    await session.say('MAIL FROM:<a@example.com>');
    expect(await session.say(`RCPT TO:<${deleted.email}>`)).toMatch(/^550 /);
    expect(await session.say(`RCPT TO:<${expired.email}>`)).toBe('550 5.1.1 No such mailbox'); // the same as a deleted one: probing learns nothing
    session.close();
  });

  it("sees another process's expiry of an inbox that has had mail, at the next RCPT and at an end of DATA after it", async () => {
    // After a mail the embedded store answers the address's route from memory, asking SQLite whether another
    // connection has committed once per input (each RCPT, each end of DATA): a change made before a client's next
    // command must be seen by that command.
    const [first, second] = [await newInbox(), await newInbox()];
    for (const inbox of [first, second]) await sendMail(stack.smtpPort, { to: inbox.email, subject: 'routes cached', text: 'x' });
    await messages(first.id, 1);
    await messages(second.id, 1);
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO test');
    await session.say('MAIL FROM:<a@example.com>');
    // An RCPT answered from memory first, so that no earlier input's mark is left for the next one to use.
    expect(await session.say(`RCPT TO:<${first.email}>`)).toMatch(/^250 /);
    await store.setExpiry(first.id, first.email, Math.floor(Date.now() / 1000) - 1);
    await session.say('RSET');
    await session.say('MAIL FROM:<a@example.com>');
    expect(await session.say(`RCPT TO:<${first.email}>`)).toBe('550 5.1.1 No such mailbox');
    expect(await session.say(`RCPT TO:<${second.email}>`)).toMatch(/^250 /);
    await session.say('DATA');
    await store.setExpiry(second.id, second.email, Math.floor(Date.now() / 1000) - 1);
    expect(await session.data('Subject: after the expiry\r\n\r\nx\r\n')).toBe('550 5.1.1 No such mailbox: deleted or expired since RCPT');
    session.close();
  });

  it('advertises SIZE 40 MB and refuses a larger declared size with 552', async () => {
    const session = await smtpSession(stack.smtpPort);
    const ehlo = await new Promise<string>((resolve) => {
      let text = '';
      session.socket.on('data', function onData(chunk) {
        text += chunk.toString();
        if (/\r\n250 [^\r]*\r\n$/.test(text)) {
          session.socket.off('data', onData);
          resolve(text);
        }
      });
      session.socket.write('EHLO test\r\n');
    });
    expect(ehlo).toContain(`SIZE ${40 * 1024 * 1024}`);
    expect(await session.say(`MAIL FROM:<a@example.com> SIZE=${40 * 1024 * 1024 + 1}`)).toMatch(/^552 /);
    session.close();
  });

  it('refuses an oversized message body with 552 and stores nothing', async () => {
    const inbox = await newInbox();
    const big = `Subject: big\r\n\r\n${('y'.repeat(998) + '\r\n').repeat(41 * 1024)}`;
    await expect(sendRaw(stack.smtpPort, [inbox.email], big)).rejects.toMatchObject({ responseCode: 552 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(0);
  }, 60_000);
});

describe('messages', () => {
  it('lists 50 messages newest first; message_count equals the total after deletes', async () => {
    const inbox = await newInbox();
    for (let i = 0; i < 50; i++) await sendMail(stack.smtpPort, { to: inbox.email, subject: `n${i}`, text: String(i) });
    const list = await messages(inbox.id, 50);
    expect(list.messages.map((m: { subject: string }) => m.subject)).toEqual(Array.from({ length: 50 }, (_, i) => `n${49 - i}`));
    for (const m of list.messages.slice(0, 5)) {
      expect((await api('DELETE', `/v1/inboxes/${inbox.id}/messages/${m.id}`)).body).toEqual({ deleted: true });
    }
    expectError(await api('DELETE', `/v1/inboxes/${inbox.id}/messages/${list.messages[0].id}`), 404);
    expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages/${list.messages[0].id}`), 404);
    const after = (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body;
    expect(after.total).toBe(45);
    expect(after.messages).toHaveLength(45);
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(45);
  }, 60_000);

  it('the wait endpoint returns a message that arrives while it waits, honouring from/subject/after', async () => {
    const inbox = await newInbox();
    const waiting = api('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=10&subject=CODE&from=bob`);
    await new Promise((r) => setTimeout(r, 300));
    await sendMail(stack.smtpPort, { from: 'alice@example.com', to: inbox.email, subject: 'Your code', text: 'from alice' });
    await sendMail(stack.smtpPort, { from: 'Bob <bob@example.com>', to: inbox.email, subject: 'newsletter', text: 'no' });
    await sendMail(stack.smtpPort, { from: 'Bob <bob@example.com>', to: inbox.email, subject: 'Your code is 123456', text: 'Your code is 123456' });
    const reply = await waiting;
    expect(reply.status).toBe(200);
    expect(reply.body.timed_out).toBe(false);
    expect(reply.body.message).toMatchObject({ from: 'bob@example.com', subject: 'Your code is 123456', codes: ['123456'] });

    const newest = reply.body.message.id;
    const none = await api('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=1&after=${newest}`);
    expect(none.body).toEqual({ message: null, timed_out: true });
    const first = (await messages(inbox.id, 3)).messages[2].id;
    const next = await api('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=1&after=${first}`);
    expect(next.body.message.subject).toBe('newsletter');
  });

  it('the wait endpoint times out with timed_out: true and validates its bounds', async () => {
    const inbox = await newInbox();
    const started = Date.now();
    const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=2`);
    expect(reply.body).toEqual({ message: null, timed_out: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=26`), 400);
    expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages/wait?timeout=0`), 400);
  });

  it('extracts codes and links', async () => {
    const inbox = await newInbox();
    await sendMail(stack.smtpPort, {
      to: inbox.email,
      subject: 'Confirm your account',
      text: 'Your verification code is 482913.\nOr open https://example.com/verify?token=abc&u=1',
      html: '<p>Your verification code is <b>482913</b>.</p><a href="https://example.com/verify?token=abc&amp;u=1">Verify</a>',
    });
    const full = await onlyMessage(inbox.id);
    expect(full.codes[0]).toBe('482913');
    expect(full.links).toEqual(['https://example.com/verify?token=abc&u=1']);
  });
});
