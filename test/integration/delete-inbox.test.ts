/**
 * Deleting a large inbox in steps a request can hold (both forms): the address is free at once, the inbox is gone
 * for its owner, a retried DELETE goes on (200, never 404) until nothing is left. TEMPMAIL_DELETE_BUDGET_MS=0 makes
 * each DELETE remove one batch, as a request out of time on AWS would. The sweep is held off (an hour), so that only
 * the DELETEs remove the inbox: a sweep every 60 s took the rest of it when the test ran long, and 5 DELETEs were seen.
 * A group's delete (DELETE /v1/inboxes?group=) goes in the same steps, one inbox a step at a time.
 */
import { messageIdFrom } from '../../lambdas/core/ids';
import { DISABLED_VERDICTS, type InboxRecord, type MessageRecord } from '../../lambdas/core/model';
import { blobKeys } from '../../lambdas/core/ports';
import { expectError, http } from '../support/http';
import { sharedStack } from '../support/shared';
import { startStack, type StackHandle } from '../support/stack';
import { storesFor } from '../support/store';
import { epochSeconds } from '../../lambdas/core/inbox';

const MESSAGES = 2_000;
let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack({ store: sharedStack().store, env: { TEMPMAIL_DELETE_BUDGET_MS: '0', TEMPMAIL_SWEEP_INTERVAL_MS: '3600000' } });
}, 120_000);
afterAll(async () => {
  await storesFor(stack).close();
  await stack.stop();
});

it(`deletes an inbox of ${MESSAGES.toLocaleString('en')} messages: address free at once, retried DELETE 200 until all is gone`, async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const username = `big-${Date.now().toString(36)}`;
  const created = (await api('POST', '/v1/inboxes', { username })).body;
  const stores = storesFor(stack);
  const inbox = (await stores.inboxes.getInbox(created.id)) as InboxRecord;
  const day = new Date().toISOString().slice(0, 10);
  const message = (i: number): MessageRecord => {
    const id = messageIdFrom(`${inbox.id}-${i}`, Date.now() - MESSAGES + i);
    return {
      id, inbox_id: inbox.id, from: 'load@example.com', from_name: null, to: inbox.email, subject: `m${i}`, received_at: new Date().toISOString(),
      size: 100, text: 'x', html: '', attachments: [], codes: [], links: [], auth: DISABLED_VERDICTS, raw_key: blobKeys.raw(inbox.id, id),
    } as MessageRecord;
  };
  for (let i = 0; i < MESSAGES; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => stores.inboxes.putMessage(message(i + k), inbox, { nowEpoch: epochSeconds(Date.now()), day: day, dailyLimit: 1e9 })));
  await stores.blobs.put(blobKeys.raw(inbox.id, message(0).id), 'raw', 'message/rfc822');
  expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(MESSAGES);

  expect((await api('DELETE', `/v1/inboxes/${inbox.id}`)).body).toEqual({ deleted: true });
  // Gone for its owner, and its address free, while most of its messages are still stored.
  expectError(await api('GET', `/v1/inboxes/${inbox.id}`), 404);
  expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages`), 404);
  expect((await api('GET', '/v1/inboxes?limit=100')).body.inboxes.map((i: { id: string }) => i.id)).not.toContain(inbox.id);
  const again = await api('POST', '/v1/inboxes', { username });
  expect(again.status).toBe(201);
  expect(again.body.email).toBe(inbox.email);

  let deletes = 1;
  for (;;) {
    const reply = await api('DELETE', `/v1/inboxes/${inbox.id}`);
    if (reply.status === 404) break; // finished by the previous one
    expect(reply.body).toEqual({ deleted: true });
    expect(++deletes).toBeLessThan(MESSAGES / 50);
  }
  expect(deletes).toBeGreaterThanOrEqual(MESSAGES / 100);
  expect(await stores.inboxes.getInbox(inbox.id)).toBeNull();
  expect((await stores.inboxes.listMessages(inbox.id, 10)).items).toEqual([]);
  expect(await stores.blobs.list(blobKeys.inbox(inbox.id))).toEqual([]);
  // The new inbox on the same address is untouched.
  expect((await api('GET', `/v1/inboxes/${again.body.id}`)).status).toBe(200);
}, 180_000);

it('empties an inbox in steps and keeps it: 202 with finished false while messages remain, then 200; the count follows', async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const created = (await api('POST', '/v1/inboxes', { username: `full-${Date.now().toString(36)}` })).body;
  const other = (await api('POST', '/v1/inboxes', {})).body;
  const stores = storesFor(stack);
  const inbox = (await stores.inboxes.getInbox(created.id)) as InboxRecord;
  const day = new Date().toISOString().slice(0, 10);
  const put = async (target: InboxRecord, i: number) => {
    const id = messageIdFrom(`${target.id}-${i}`, Date.now() - 1_000 + i);
    const record = {
      id, inbox_id: target.id, from: 'load@example.com', from_name: null, to: target.email, subject: `m${i}`, received_at: new Date().toISOString(),
      size: 100, text: 'x', html: '', attachments: [], codes: [], links: [], auth: DISABLED_VERDICTS, raw_key: blobKeys.raw(target.id, id),
    } as MessageRecord;
    await stores.inboxes.putMessage(record, target, { nowEpoch: epochSeconds(Date.now()), day: day, dailyLimit: 1e9 });
    await stores.blobs.put(record.raw_key, `raw ${i}`, 'message/rfc822');
    return id;
  };
  const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => put(inbox, i)));
  const kept = await put((await stores.inboxes.getInbox(other.id)) as InboxRecord, 0);

  // TEMPMAIL_DELETE_BUDGET_MS=0: one batch of 25 per request, as a request out of time would leave it.
  const replies = [];
  for (let i = 0; i < 5; i++) {
    const reply = await api('DELETE', `/v1/inboxes/${inbox.id}/messages`);
    replies.push([reply.status, reply.body]);
    if (reply.status === 200) break;
    expect((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(60 - 25 * replies.length);
  }
  expect(replies).toEqual([
    [202, { deleted_count: 25, finished: false }],
    [202, { deleted_count: 25, finished: false }],
    [200, { deleted_count: 10, finished: true }],
  ]);
  // Both answers as the OpenAPI document declares them (openapi.test.ts sees only the 200 on its stack).
  const declared = (await api('GET', '/v1/openapi.json')).body;
  const responses = declared.paths['/v1/inboxes/{inbox_id}/messages'].delete.responses;
  for (const status of ['200', '202']) expect(responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/InboxEmptied' });
  expect(declared.components.schemas.InboxEmptied).toMatchObject({ required: ['deleted_count', 'finished'], additionalProperties: false });
  // The inbox stays, empty, with its address and lifetime; its messages' objects are gone; the other inbox is untouched.
  const after = (await api('GET', `/v1/inboxes/${inbox.id}`)).body;
  expect(after).toMatchObject({ id: inbox.id, email: inbox.email, status: 'active', message_count: 0, expires_at: created.expires_at });
  expect((await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body).toEqual({ messages: [], total: 0 });
  expect(await stores.blobs.list(blobKeys.inbox(inbox.id))).toEqual([]);
  expectError(await api('GET', `/v1/inboxes/${inbox.id}/messages/${ids[0]}`), 404);
  expect((await api('GET', `/v1/inboxes/${other.id}/messages`)).body.messages.map((m: { id: string }) => m.id)).toEqual([kept]);
  // An empty inbox empties at once; another account's inbox is 404 and keeps its messages.
  expect(await api('DELETE', `/v1/inboxes/${inbox.id}/messages`)).toMatchObject({ status: 200, body: { deleted_count: 0, finished: true } });
  expectError(await http(stack.apiUrl, stack.keys.startup)('DELETE', `/v1/inboxes/${other.id}/messages`), 404);
  expect((await api('GET', `/v1/inboxes/${other.id}`)).body.message_count).toBe(1);
}, 120_000);

it("deletes a group in steps: 202 with finished false while inboxes remain, then 200; each answer as declared", async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const group = `steps-${Date.now().toString(36)}`;
  const made = [(await api('POST', '/v1/inboxes', { group })).body, (await api('POST', '/v1/inboxes', { group })).body];
  const kept = (await api('POST', '/v1/inboxes', {})).body;
  const stores = storesFor(stack);
  const day = new Date().toISOString().slice(0, 10);
  for (const created of [...made, kept]) {
    const inbox = (await stores.inboxes.getInbox(created.id)) as InboxRecord;
    const id = messageIdFrom(inbox.id, Date.now());
    const record = {
      id, inbox_id: inbox.id, from: 'load@example.com', from_name: null, to: inbox.email, subject: 'm', received_at: new Date().toISOString(),
      size: 100, text: 'x', html: '', attachments: [], codes: [], links: [], auth: DISABLED_VERDICTS, raw_key: blobKeys.raw(inbox.id, id),
    } as MessageRecord;
    await stores.inboxes.putMessage(record, inbox, { nowEpoch: epochSeconds(Date.now()), day, dailyLimit: 1e9 });
    await stores.blobs.put(record.raw_key, 'raw', 'message/rfc822');
  }
  // TEMPMAIL_DELETE_BUDGET_MS=0: each request takes one inbox one step (marked and emptied, or removed).
  const replies = [];
  for (let i = 0; i < 8; i++) {
    const reply = await api('DELETE', `/v1/inboxes?group=${group}`);
    replies.push([reply.status, reply.body]);
    if (reply.status === 200) break;
  }
  expect(replies).toEqual([
    [202, { deleted_count: 0, finished: false }],
    [202, { deleted_count: 1, finished: false }],
    [202, { deleted_count: 0, finished: false }],
    [200, { deleted_count: 1, finished: true }],
  ]);
  const declared = (await api('GET', '/v1/openapi.json')).body;
  const responses = declared.paths['/v1/inboxes'].delete.responses;
  for (const status of ['200', '202']) expect(responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/GroupDeleted' });
  expect(declared.components.schemas.GroupDeleted).toMatchObject({ required: ['deleted_count', 'finished'], additionalProperties: false });
  for (const inbox of made) {
    expect(await stores.inboxes.getInbox(inbox.id)).toBeNull();
    expect(await stores.blobs.list(blobKeys.inbox(inbox.id))).toEqual([]);
  }
  expect((await api('GET', `/v1/inboxes/${kept.id}`)).body.message_count).toBe(1);
}, 120_000);
