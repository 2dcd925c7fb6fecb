/**
 * Ingest reliability, on the embedded store and (in the dynamodb project) on DynamoDB Local and the S3 server: SES
 * events processed twice, ingest failing while DynamoDB is down and recovering, accepted mail resumed after a
 * restart, old-style address claims, and the daily e-mail limit.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/ports';
import { envelopeMetadata } from '../../lambdas/usecases/inbound';
import { installContext } from '../../lambdas/app/current';
import { blobKeys } from '../../lambdas/core/ports';
import { sesEvent } from '../support/ses';
import { http } from '../support/http';
import { eventually, sendMail, smtpSession } from '../support/mail';
import { sharedStack } from '../support/shared';
import { startStack, type StackHandle } from '../support/stack';
import { storesFor, stripClaimRouting } from '../support/store';

describe('the ingest handler, called twice with one SES event', () => {
  const stack = sharedStack();
  afterAll(() => installContext(undefined));

  it('stores one message per recipient, not two', async () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    // The handler runs on the stack's own storage, as the local stack runs it.
    installContext(storesFor(stack).context);
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const a = (await api('POST', '/v1/inboxes', {})).body;
    const b = (await api('POST', '/v1/inboxes', { domain: 'inbox.test' })).body;
    const mailId = `twice${Date.now()}`;
    await storesFor(stack).blobs.put(blobKeys.inbound(mailId), `From: x@example.com\r\nSubject: twice\r\n\r\nbody\r\n`, 'message/rfc822');
    const event = sesEvent({ mailId, recipients: [a.email, b.email, 'nobody@tempmail.local'], envelopeFrom: 'x@example.com', receivedAt: new Date().toISOString() });
    const { handler } = await import('../../lambdas/ingest/handler');
    expect(await handler(event)).toEqual({ stored: 2, dropped: 1 });
    expect(await handler(event)).toEqual({ stored: 0, dropped: 1 });
    for (const inbox of [a, b]) {
      const list = (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body;
      expect(list.total).toBe(1);
      expect(list.messages).toHaveLength(1);
    }
  });

  it('keeps mail whose virus scan failed, flagged, but serves none of its bytes: raw 403, attachments without a link', async () => {
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    installContext(storesFor(stack).context);
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    const { handler } = await import('../../lambdas/ingest/handler');
    const mime = (subject: string) =>
      [
        'From: x@example.com',
        `Subject: ${subject}`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        'Your code is 482913',
        '--b',
        'Content-Type: application/octet-stream; name="payload.exe"',
        'Content-Disposition: attachment; filename="payload.exe"',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('MZ not really a program').toString('base64'),
        '--b--',
        '',
      ].join('\r\n');
    const receive = async (subject: string, virus: string) => {
      const mailId = `virus${virus}${Date.now()}`;
      await storesFor(stack).blobs.put(blobKeys.inbound(mailId), mime(subject), 'message/rfc822');
      expect(await handler(sesEvent({ mailId, recipients: [inbox.email], envelopeFrom: 'x@example.com', receivedAt: new Date().toISOString() }, { virus }))).toEqual({ stored: 1, dropped: 0 });
    };
    await receive('infected', 'FAIL');
    await receive('clean', 'PASS');
    const list = (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body;
    const idOf = (subject: string) => list.messages.find((m: { subject: string }) => m.subject === subject).id;

    const infected = await api('GET', `/v1/inboxes/${inbox.id}/messages/${idOf('infected')}`);
    expect(infected.status).toBe(200);
    expect(infected.body).toMatchObject({ subject: 'infected', codes: ['482913'], auth: { virus: 'FAIL' }, attachment_count: 1 });
    expect(infected.body.attachments).toEqual([expect.objectContaining({ filename: 'payload.exe', download_url: null })]);
    const raw = await api('GET', `/v1/inboxes/${inbox.id}/messages/${idOf('infected')}/raw`);
    expect(raw.status).toBe(403);
    expect(raw.body).toEqual({ error: { code: 403, message: `message ${idOf('infected')} failed the virus scan (auth.virus FAIL): its raw form and attachments are not served` } });

    // The same mail with a clean verdict is served as ever.
    const clean = await api('GET', `/v1/inboxes/${inbox.id}/messages/${idOf('clean')}`);
    expect(clean.body.attachments).toEqual([expect.objectContaining({ filename: 'payload.exe', download_url: expect.stringMatching(/^http/) })]);
    const cleanRaw = await api('GET', `/v1/inboxes/${inbox.id}/messages/${idOf('clean')}/raw`); // the 302 followed
    expect(cleanRaw.status).toBe(200);
    expect(cleanRaw.text).toContain('Subject: clean');
  });

  (stack.store === 'dynamodb' ? it : it.skip)('routes mail through an address claim written before claims carried routing fields', async () => {
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    const store = storesFor(stack);
    await stripClaimRouting(stack.dynamoEndpoint!, inbox.email, stack.table);
    expect(await store.inboxes.inboxForAddress(inbox.email)).toMatchObject({ id: inbox.id, account_id: expect.any(String), plan: 'enterprise' });
    await sendMail(stack.smtpPort, { to: inbox.email, subject: 'old claim', text: 'still delivered' });
    const list = await eventually(async () => {
      const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages`);
      return reply.body.messages?.length === 1 ? reply.body : null;
    }, 10_000, 'the message behind an old-style claim');
    expect(list.messages[0].subject).toBe('old claim');
  });
});

// The local SMTP stand-in's own admission (the quota at RCPT, 451 while DynamoDB is down, the inbound queue resumed
// after a restart). SES checks none of these: the template form (aws-template project) runs what SES does instead.
(sharedStack().form === 'aws-template' ? describe.skip : describe)('on a stack of its own (in the dynamodb form, with DynamoDB Local run by the test, so it can be stopped)', () => {
  const kind = sharedStack().store;
  let dynamo: DynamoDbLocal | undefined;
  let dynamoPort: number;
  let stack: StackHandle;
  const dataDir = path.join(os.tmpdir(), `tempmail-ingest-${process.pid}-${kind}`);

  beforeAll(async () => {
    const env: Record<string, string> = { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ dev: { emails_per_day: 3 } }) };
    if (kind === 'dynamodb') {
      dynamoPort = await freePort();
      dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port: dynamoPort, dataDir: path.join(dataDir, 'dynamodb') });
      env.TEMPMAIL_DYNAMODB_ENDPOINT = dynamo.endpoint;
    }
    stack = await startStack({ dataDir, store: kind, env });
  });
  afterAll(async () => {
    await stack.stop();
    await storesFor(stack).close();
    await dynamo?.stop();
    spawnSync('rm', ['-rf', dataDir]);
  });

  (kind === 'dynamodb' ? it : it.skip)('while DynamoDB is down, mail gets 451 (never a 250 it cannot count), and is accepted and stored once it is back', async () => {
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO test');
    await session.say('MAIL FROM:<a@example.com>');
    expect(await session.say(`RCPT TO:<${inbox.email}>`)).toMatch(/^250 /);
    await dynamo!.stop();
    expect(await session.say('DATA')).toMatch(/^354 /);
    // The day's quota is reserved before the 250 and lives in DynamoDB: without it, a temporary failure.
    expect(await session.data('Subject: survives\r\n\r\nhello\r\n')).toMatch(/^451 /);
    session.close();
    // New mail meanwhile is refused with a temporary error too, at RCPT.
    const refused = await smtpSession(stack.smtpPort);
    await refused.say('EHLO test');
    await refused.say('MAIL FROM:<a@example.com>');
    expect(await refused.say(`RCPT TO:<${inbox.email}>`)).toMatch(/^451 /);
    refused.close();
    dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port: dynamoPort, dataDir: path.join(dataDir, 'dynamodb') });
    // The sender's retry goes through.
    await eventually(async () => sendMail(stack.smtpPort, { to: inbox.email, subject: 'survives', text: 'hello' }).then(() => true, () => false), 30_000, 'SMTP to accept again');
    const list = await eventually(async () => {
      const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages`);
      return reply.status === 200 && reply.body.messages.length === 1 ? reply.body : null;
    }, 30_000, 'the message to be stored after recovery');
    expect(list.messages[0].subject).toBe('survives');
  }, 90_000);

  it('a restart resumes mail that was accepted but not yet ingested', async () => {
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    // What accepted-but-unprocessed mail leaves behind: the inbound object with its envelope in its metadata, or,
    // for an envelope too large for metadata, in a spool object beside it. The running stack scans only at
    // start-up, so these wait for the restart.
    const s3 = storesFor(stack);
    const envelope = (mailId: string, recipients: string[]) => ({ mailId, recipients, envelopeFrom: 'a@example.com', receivedAt: new Date().toISOString() });
    const pending = async (mailId: string, subject: string, recipients: string[]) => {
      const entry = envelope(mailId, recipients);
      const { metadata, spooled } = envelopeMetadata(entry);
      if (spooled) await s3.blobs.put(`spool/${mailId}.json`, JSON.stringify(entry), 'application/json');
      await s3.blobs.put(blobKeys.inbound(mailId), `Subject: ${subject}\r\n\r\nwas pending\r\n`, 'message/rfc822', metadata);
      return spooled;
    };
    const stamp = Date.now().toString(36);
    expect(await pending(`${stamp}meta`, 'pending in metadata', [inbox.email])).toBe(false);
    const many = [...Array.from({ length: 60 }, (_, i) => `nobody-${i}-of-a-long-list@tempmail.local`), inbox.email];
    expect(await pending(`${stamp}spool`, 'pending in spool', many)).toBe(true);
    // An object with an unreadable envelope is logged and left in place; it holds up nothing behind it.
    const bad = blobKeys.inbound(`${stamp}0bad`);
    await s3.blobs.put(bad, 'Subject: bad\r\n\r\nx\r\n', 'message/rfc822', { 'tempmail-envelope': 'not json' });
    // A spool object left after its mail was stored (the inbound object goes first) is cleaned up.
    await s3.blobs.put(`spool/${(Date.now() - 3_600_000).toString(36)}done.json`, JSON.stringify(envelope('x', [inbox.email])), 'application/json');
    await stack.stop();
    await stack.restart();
    const list = await eventually(async () => {
      const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages`);
      return reply.body.messages?.length === 2 ? reply.body : null;
    }, 20_000, 'the two pending messages after restart');
    expect(list.messages.map((m: { subject: string }) => m.subject).sort()).toEqual(['pending in metadata', 'pending in spool']);
    await eventually(
      async () => JSON.stringify(await s3.blobs.list('inbound/')) === JSON.stringify([bad]) && (await s3.blobs.list('spool/')).length === 0,
      10_000,
      'inbound and spool emptied but for the unreadable one',
    );
    expect(stack.output()).toContain('unreadable envelope');
    await s3.blobs.delete(bad);
  }, 90_000);

  it('past the daily e-mail limit, RCPT gets 452 and nothing more is stored', async () => {
    const api = http(stack.apiUrl, stack.keys.dev);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    for (let i = 0; i < 3; i++) await sendMail(stack.smtpPort, { to: inbox.email, subject: `q${i}`, text: 'x' });
    await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count === 3, 10_000, '3 messages');
    await expect(sendMail(stack.smtpPort, { to: inbox.email, subject: 'q3', text: 'x' })).rejects.toMatchObject({ responseCode: 452 });
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(3);
  });
});

describe('the SMTP envelope is kept with each message', () => {
  const stack = sharedStack();
  it('GET message has envelope.to as sent (its +tag and case) and envelope.from, while `to` stays the inbox address', async () => {
    const api = http(stack.apiUrl, stack.keys.enterprise);
    const inbox = (await api('POST', '/v1/inboxes', { username: `env${Date.now().toString(36)}` })).body;
    const [user, domain] = inbox.email.split('@');
    const tagged = `${user.toUpperCase()}+Signup-42@${domain}`;
    const session = await smtpSession(stack.smtpPort);
    await session.say('EHLO client.example');
    await session.say('MAIL FROM:<bounces+x1@sender.example>');
    expect(await session.say(`RCPT TO:<${tagged}>`)).toMatch(/^250 /);
    await session.say('DATA');
    expect(await session.data(`From: App <app@sender.example>\r\nTo: Someone <someone@elsewhere.example>\r\nSubject: envelope\r\n\r\nhello\r\n`)).toMatch(/^250 /);
    session.close();
    const list = await eventually(async () => {
      const reply = await api('GET', `/v1/inboxes/${inbox.id}/messages`);
      return reply.body.messages?.length ? reply.body.messages : null;
    }, 20_000, 'the message');
    const message = (await api('GET', `/v1/inboxes/${inbox.id}/messages/${list[0].id}`)).body;
    expect(message.envelope).toEqual({ from: 'bounces+x1@sender.example', to: tagged });
    expect(message.to).toBe(inbox.email);
  });
});
