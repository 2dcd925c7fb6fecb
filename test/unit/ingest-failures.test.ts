/**
 * Ingest's failure classes, on the embedded store with one fault injected where the store is called: a failure that
 * would recur on every retry stores the message in its degraded form (the 250 still becomes a readable message), a
 * transient one throws for the caller to retry and leaves the inbound mail in place.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { DependencyUnavailable } from '../../lambdas/core/errors';
import { DISABLED_VERDICTS } from '../../lambdas/core/model';
import { blobKeys, type InboxStore } from '../../lambdas/core/ports';
import { appContext } from '../../lambdas/app/context';
import type { IngestContext } from '../../lambdas/usecases/context';
import { createInbox } from '../../lambdas/usecases/inboxes';
import { ingestMessage } from '../../lambdas/usecases/ingest';
import { getMessage } from '../../lambdas/usecases/messages';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-ingest-failures-'));
const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1' } }));
const caller = { account_id: 'acct_failures', plan: 'enterprise' as const };
afterAll(async () => {
  await ctx.stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The context with putMessage failing once with `error`. */
function failingOnce(error: Error): IngestContext {
  let failed = false;
  const inboxes: InboxStore = Object.create(ctx.stores.inboxes);
  inboxes.putMessage = (...args) => {
    if (failed) return ctx.stores.inboxes.putMessage(...args);
    failed = true;
    return Promise.reject(error);
  };
  return { ...ctx, stores: { ...ctx.stores, inboxes } };
}

const RAW = 'From: Ann <ann@example.com>\r\nSubject: =?utf-8?Q?Gr=C3=BC=C3=9Fe?=\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nyour code is 123456\r\n--b\r\nContent-Type: application/pdf; name=a.pdf\r\n\r\nPDF\r\n--b--\r\n';

async function inboundMail(mailId: string) {
  const inbox = await createInbox(ctx, caller, {});
  await ctx.stores.blobs.put(blobKeys.inbound(mailId), RAW, 'message/rfc822');
  return { inbox, mail: { mailId, recipients: [inbox.email], envelopeFrom: 'ann@example.com', receivedAtMs: Date.now(), verdicts: DISABLED_VERDICTS } };
}

it('an item that will never fit stores the degraded message: headers, body as text, raw mail, parse_error', async () => {
  const { inbox, mail } = await inboundMail('failure-permanent');
  const tooBig = Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
  const [outcome] = await ingestMessage(failingOnce(tooBig), mail);
  expect(outcome).toMatchObject({ outcome: 'stored', degraded: expect.stringContaining('Item size has exceeded') });
  const message = await getMessage(ctx, caller, inbox.id, outcome.messageId!);
  expect(message).toMatchObject({ from: 'ann@example.com', from_name: 'Ann', subject: 'Grüße', attachments: [], attachment_count: 0 });
  expect(message.parse_error).toContain('could not be stored in full');
  expect(message.text).toContain('your code is 123456');
  expect(message.codes).toEqual(['123456']);
  expect((await ctx.stores.blobs.get(blobKeys.raw(inbox.id, outcome.messageId!)))!.toString()).toBe(RAW);
  expect(await ctx.stores.blobs.get(blobKeys.inbound(mail.mailId))).toBeNull(); // done: nothing left to retry
});

it('a transient fault throws for a retry, stores nothing and keeps the inbound mail', async () => {
  const { inbox, mail } = await inboundMail('failure-transient');
  await expect(ingestMessage(failingOnce(new DependencyUnavailable('DynamoDB')), mail)).rejects.toBeInstanceOf(DependencyUnavailable);
  expect((await ctx.stores.inboxes.listMessages(inbox.id, 10)).items).toEqual([]);
  expect(await ctx.stores.blobs.get(blobKeys.inbound(mail.mailId))).not.toBeNull();
  // The retry stores the full message.
  const [outcome] = await ingestMessage(ctx, mail);
  const message = await getMessage(ctx, caller, inbox.id, outcome.messageId!);
  expect(message.parse_error).toBeNull();
  expect(message.attachments.map((a) => a.filename)).toEqual(['a.pdf']);
});

it('throttling and transaction conflicts are transient too', async () => {
  for (const error of [
    Object.assign(new Error('slow down'), { name: 'ThrottlingException' }),
    Object.assign(new Error('conflict'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] }),
    Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
  ]) {
    const { mail } = await inboundMail(`failure-${error.name}-${error.message}`.replace(/\W/g, '-'));
    await expect(ingestMessage(failingOnce(error), mail)).rejects.toBe(error);
  }
});
