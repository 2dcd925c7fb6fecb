/**
 * What a message keeps of its bodies (core/message.ts BODY_KEPT_CHARS): the first 2 M characters of its text and of
 * its HTML, `bodies_cut` saying so, in both parses (the local stack's thread, which hands the body over held, and
 * in-process, as on AWS). A 38 MB text was kept whole though never served past 2 M characters; 41 MB of control
 * characters made a 492 MB body object (review 33 D4). The raw mail keeps everything.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appConfig } from '../../lambdas/config/app-config';
import { appContext } from '../../lambdas/app/context';
import { BODY_KEPT_CHARS } from '../../lambdas/core/message';
import { DISABLED_VERDICTS } from '../../lambdas/core/model';
import { blobKeys } from '../../lambdas/core/ports';
import { mailParser } from '../../lambdas/ingest/parse-mail';
import { createInbox } from '../../lambdas/usecases/inboxes';
import { ingestMessage } from '../../lambdas/usecases/ingest';
import { getMessage } from '../../lambdas/usecases/messages';

jest.setTimeout(120_000);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-body-kept-'));
const ctx = appContext(appConfig({ store: { kind: 'embedded', dataDir, publicUrl: 'http://127.0.0.1' } }));
const caller = { account_id: 'acct_kept', plan: 'enterprise' as const };
afterAll(async () => {
  await ctx.stores.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** 3 M characters of control characters and quotes (each escaped in JSON), a code first; and its raw mail. */
const text = `Your code is 482913\n${'\u0001"\\'.repeat(1_000_000)}`;
const raw = Buffer.from(`From: a@example.com\r\nSubject: kept\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(text).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n`);

it.each([
  ['on the parse thread (held)', ctx],
  ['in-process (as on AWS)', { ...ctx, mail: mailParser }],
])('keeps the first BODY_KEPT_CHARS characters of a long body, %s', async (_label, context) => {
  const inbox = await createInbox(ctx, caller, {});
  const mailId = `kept-${inbox.id}`;
  await ctx.stores.blobs.put(blobKeys.inbound(mailId), raw, 'message/rfc822');
  const [outcome] = await ingestMessage(context, { mailId, recipients: [inbox.email], envelopeFrom: 'a@example.com', receivedAtMs: Date.now(), verdicts: DISABLED_VERDICTS });
  expect(outcome.outcome).toBe('stored');
  const record = (await ctx.stores.inboxes.getMessage(inbox.id, outcome.messageId!))!;
  const body = JSON.parse((await ctx.stores.blobs.get(record.body_key!))!.toString('utf8'));
  expect(body).toMatchObject({ html: '', bodies_cut: true, codes: ['482913'] });
  expect(body.text).toBe(text.slice(0, BODY_KEPT_CHARS));
  // What the API answers says so; the raw copy is whole.
  const view = await getMessage(ctx, caller, inbox.id, outcome.messageId!);
  expect(view).toMatchObject({ body_truncated: true, codes: ['482913'] });
  expect((await ctx.stores.blobs.get(record.raw_key))!.length).toBe(raw.length);
});

it('keeps a body of up to BODY_KEPT_CHARS characters whole, and says nothing was cut', async () => {
  const inbox = await createInbox(ctx, caller, {});
  const mailId = `whole-${inbox.id}`;
  const short = `Your code is 482913\n${'x'.repeat(300_000)}`;
  await ctx.stores.blobs.put(blobKeys.inbound(mailId), `From: a@example.com\r\nSubject: whole\r\n\r\n${short}\r\n`, 'message/rfc822');
  const [outcome] = await ingestMessage(ctx, { mailId, recipients: [inbox.email], envelopeFrom: 'a@example.com', receivedAtMs: Date.now(), verdicts: DISABLED_VERDICTS });
  const record = (await ctx.stores.inboxes.getMessage(inbox.id, outcome.messageId!))!;
  const body = JSON.parse((await ctx.stores.blobs.get(record.body_key!))!.toString('utf8'));
  expect(body.bodies_cut).toBeUndefined();
  expect(body.text.trim()).toBe(short);
  expect((await getMessage(ctx, caller, inbox.id, outcome.messageId!)).body_truncated).toBe(false);
});

it('says a body was cut only when one was: a subject of over 2 M characters is cut on read, the bodies are whole', async () => {
  const inbox = await createInbox(ctx, caller, {});
  const mailId = `subject-${inbox.id}`;
  const subject = Array.from({ length: 210_000 }, (_, i) => `w${i % 10}x`).join(' '); // about 2.1 M characters, folded below
  await ctx.stores.blobs.put(blobKeys.inbound(mailId), `From: a@example.com\r\nSubject: ${subject.replace(/(.{70}) /g, '$1\r\n ')}\r\n\r\nshort body, code 135791\r\n`, 'message/rfc822');
  const [outcome] = await ingestMessage(ctx, { mailId, recipients: [inbox.email], envelopeFrom: 'a@example.com', receivedAtMs: Date.now(), verdicts: DISABLED_VERDICTS });
  const view = await getMessage(ctx, caller, inbox.id, outcome.messageId!);
  expect(view.text.trim()).toBe('short body, code 135791');
  expect(view.body_truncated).toBe(false);
});
