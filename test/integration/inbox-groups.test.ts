/**
 * Inbox groups (issue 24 item 4) over real HTTP and through the typed client, with mail over real SMTP: an inbox
 * created in a group, a username derived from group and test name (the same address on every run), the group's
 * list, and its delete (messages and objects with it). Runs in the embedded, dynamodb and aws-template projects
 * (jest.config.js): the group index on DynamoDB, and the grants of the functions that query it.
 */
import { TempMailClient } from '../../client/src';
import { usernameFor } from '../../lambdas/core/address';
import { expectError, http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';
import type { Json } from '../support/json';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });
let counter = 0;
/** A group of this run only: the shared stack serves other files (and earlier runs may have left groups). */
const freshGroup = () => `Run-${Date.now().toString(36)}-${counter++}`;
const ids = (reply: { body: Json }) => (reply.body.inboxes as Json[]).map((i) => i.id);

it('creates inboxes in a group, lists only them (newest first, any case), and deletes them with their mail', async () => {
  const group = freshGroup();
  const made: Json[] = [];
  for (let i = 0; i < 3; i++) {
    const reply = await api('POST', '/v1/inboxes', { group });
    expect(reply.status).toBe(201);
    expect(reply.body.group).toBe(group.toLowerCase());
    made.push(reply.body);
  }
  const outside = (await api('POST', '/v1/inboxes', {})).body;
  expect(outside.group).toBeNull();
  const otherAccount = (await http(stack.apiUrl, stack.keys.startup)('POST', '/v1/inboxes', { group })).body;
  for (const inbox of made) await sendMail(stack.smtpPort, { to: inbox.email, subject: 'in the group', text: 'hello' });
  await sendMail(stack.smtpPort, { to: outside.email, subject: 'outside', text: 'hello' });
  await eventually(async () => ((await api('GET', `/v1/inboxes/${made[2].id}`)).body.message_count as number) === 1, 60_000, 'the mail'); // the template form's cold starts under load took over 15 s

  const listed = await api('GET', `/v1/inboxes?group=${group.toUpperCase()}`);
  expect(listed.status).toBe(200);
  expect(new Set(ids(listed))).toEqual(new Set(made.map((i) => i.id)));
  expect(listed.body.inboxes.map((i: Json) => i.created_at)).toEqual([...listed.body.inboxes.map((i: Json) => i.created_at)].sort().reverse());
  const paged = await api('GET', `/v1/inboxes?group=${group}&limit=2`);
  expect([paged.body.inboxes.length, typeof paged.body.next_cursor]).toEqual([2, 'string']);
  expect(ids(await api('GET', `/v1/inboxes?group=${group}&limit=2&cursor=${paged.body.next_cursor}`))).toEqual([ids(listed)[2]]);

  const deleted = await api('DELETE', `/v1/inboxes?group=${group}`);
  expect([deleted.status, deleted.body]).toEqual([200, { deleted_count: 3, finished: true }]);
  for (const inbox of made) expectError(await api('GET', `/v1/inboxes/${inbox.id}`), 404);
  await eventually(async () => ids(await api('GET', `/v1/inboxes?group=${group}`)).length === 0, 10_000, 'an empty group');
  // Nothing outside the group, nor another account's group of the same name, went with it.
  expect((await api('GET', `/v1/inboxes/${outside.id}`)).body.message_count).toBe(1);
  expect((await http(stack.apiUrl, stack.keys.startup)('GET', `/v1/inboxes/${otherAccount.id}`)).status).toBe(200);
  expect((await api('DELETE', `/v1/inboxes?group=${group}`)).body).toEqual({ deleted_count: 0, finished: true });
}, 60_000);

it('derives the username from group and test name: the same address on every run, documented by its rule', async () => {
  const group = freshGroup();
  const testName = 'sign-up › sends a verification link';
  const first = await api('POST', '/v1/inboxes', { group, test_name: testName });
  expect(first.status).toBe(201);
  expect(first.body.email).toBe(`${usernameFor(group.toLowerCase(), testName)}@${stack.domains[0]}`);
  expect(first.body.email).toMatch(new RegExp(`^${group.toLowerCase()}-sign-up-sends-a-verification-link-[0-9a-f]{8}@`));
  // While it lives the address is taken (409, as any chosen username); after the group's delete, the next run gets it back.
  expect(expectError(await api('POST', '/v1/inboxes', { group, test_name: testName }), 409)).toMatch(/already in use/);
  await api('DELETE', `/v1/inboxes?group=${group}`);
  const second = await api('POST', '/v1/inboxes', { group, test_name: testName });
  expect([second.status, second.body.email]).toEqual([201, first.body.email]);
  expect((await api('POST', '/v1/inboxes', { group, test_name: `${testName} (2)` })).body.email).not.toBe(first.body.email);
  await api('DELETE', `/v1/inboxes?group=${group}`);
});

it.each([
  ['a group with a space', { group: 'bad group' }, /^group must be 1 to 32 characters of a-z, 0-9/],
  ['a group of 33', { group: 'g'.repeat(33) }, /^group must be 1 to 32 characters/],
  ['a group with ".."', { group: 'a..b' }, /not contain "\.\."/],
  ['a test name without a group', { test_name: 'no group' }, /test_name derives the username from the group: give it with group, and without username/],
  ['a test name with a username', { group: 'g', test_name: 'x', username: 'chosen' }, /give it with group, and without username/],
  ['an empty test name', { group: 'g', test_name: '' }, /test_name must not be empty/],
  ['a test name of 501', { group: 'g', test_name: 'x'.repeat(501) }, /test_name must be at most 500 characters/],
])('refuses to create an inbox with %s: 400', async (_label, body, message) => {
  expect(expectError(await api('POST', '/v1/inboxes', body), 400)).toMatch(message);
});

it('refuses a bad group on the list and the delete, and a delete without a group', async () => {
  expect(expectError(await api('GET', '/v1/inboxes?group=a%20b'), 400)).toMatch(/^group must be/);
  expect(expectError(await api('DELETE', '/v1/inboxes?group=-x'), 400)).toMatch(/^group must be/);
  expect(expectError(await api('DELETE', '/v1/inboxes'), 400)).toMatch(/^group is required/);
});

it('works through the typed client: createInbox with a group, listInboxes({ group }), deleteInboxes(group)', async () => {
  const group = freshGroup();
  const a = await client.createInbox({ group, test_name: 'client one' });
  const b = await client.createInbox({ group });
  expect(a.email.startsWith(`${group.toLowerCase()}-client-one-`)).toBe(true);
  expect(new Set((await client.listInboxes({ group })).inboxes.map((i) => i.id))).toEqual(new Set([a.id, b.id]));
  expect(await client.deleteInboxes(group)).toEqual({ deleted_count: 2, finished: true });
  await expect(client.getInbox(a.id)).rejects.toMatchObject({ status: 404 });
});

it("answers each inbox's group on GET inbox and in the list items, with and without ?group= (null for none), also through the client", async () => {
  const group = freshGroup();
  const grouped = (await api('POST', '/v1/inboxes', { group })).body;
  const plain = (await api('POST', '/v1/inboxes', {})).body;
  expect((await api('GET', `/v1/inboxes/${grouped.id}`)).body).toMatchObject({ id: grouped.id, group: group.toLowerCase() });
  expect((await api('GET', `/v1/inboxes/${plain.id}`)).body).toMatchObject({ id: plain.id, group: null });
  // The account's list (on DynamoDB its index does not project the group: the page reads it from the items).
  const listed = await api('GET', '/v1/inboxes?limit=100');
  expect([listed.status, listed.status === 200 ? '' : listed.text]).toEqual([200, '']);
  const page = listed.body.inboxes as Json[];
  expect(page.filter((i) => i.id === grouped.id || i.id === plain.id).map((i) => [i.id, i.group])).toEqual([
    [plain.id, null],
    [grouped.id, group.toLowerCase()],
  ]);
  expect(page.every((i) => i.group === null || typeof i.group === 'string')).toBe(true);
  expect((await api('GET', `/v1/inboxes?group=${group.toUpperCase()}`)).body.inboxes.map((i: Json) => [i.id, i.group])).toEqual([[grouped.id, group.toLowerCase()]]);
  expect(await client.getInbox(grouped.id)).toMatchObject({ group: group.toLowerCase() });
  expect((await client.listInboxes({ group })).inboxes.map((i) => i.group)).toEqual([group.toLowerCase()]);
  await api('DELETE', `/v1/inboxes?group=${group}`);
  await api('DELETE', `/v1/inboxes/${plain.id}`);
});
