/**
 * Isolation: another account, trying every endpoint with this account's inbox ids, message ids and addresses,
 * always gets 404 and never a byte of the data.
 */
import fc from 'fast-check';
import { issueKey } from '../../lambdas/usecases/keys';
import { messageIdFrom } from '../../lambdas/core/ids';
import { ROUTES } from '../../lambdas/contract/routes';
import { http } from '../support/http';
import { sharedStack } from '../support/shared';
import { storesFor } from '../support/store';
import { epochSeconds } from '../../lambdas/core/inbox';

const stack = sharedStack();
const store = storesFor(stack);

it('never lets one account see or change another account’s inboxes and messages', async () => {
  const owner = http(stack.apiUrl, (await issueKey(store.keyContext, 'enterprise')).key);
  const intruder = http(stack.apiUrl, (await issueKey(store.keyContext, 'enterprise')).key);
  const secret = `secret-${Date.now()}`;
  const inboxes: { id: string; email: string; messageId: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const created = (await owner('POST', '/v1/inboxes', { username: `${secret}-${i}` })).body;
    const inbox = (await store.inboxes.getInbox(created.id))!;
    const messageId = messageIdFrom(`${secret}-${i}`, Date.now());
    await store.inboxes.putMessage(
      {
        id: messageId, inbox_id: inbox.id, from: `${secret}@example.com`, from_name: secret, to: inbox.email, subject: secret,
        received_at: new Date().toISOString(), size: 10, text: secret, html: secret, attachments: [], codes: [secret], links: [],
        auth: { spf: 'DISABLED', dkim: 'DISABLED', dmarc: 'DISABLED', spam: 'DISABLED', virus: 'DISABLED' }, raw_key: `inboxes/${inbox.id}/${messageId}/raw.eml`,
      },
      inbox,
      { nowEpoch: epochSeconds(Date.now()), day: new Date().toISOString().slice(0, 10), dailyLimit: 1e6 },
    );
    inboxes.push({ id: created.id, email: created.email, messageId });
  }
  const routes = ROUTES.filter((r) => r.auth && r.path.includes('{inbox_id}'));
  let tried = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...routes),
      fc.constantFrom(...inboxes),
      fc.constantFrom(...inboxes),
      fc.boolean(),
      async (route, a, b, withQuery) => {
        tried++;
        const path = route.path.replace('{inbox_id}', a.id).replace('{message_id}', b.messageId);
        const query = !withQuery ? '' : route.name === 'waitForMessage' ? `?timeout=1&after=${b.messageId}` : route.name === 'listMessages' ? '?limit=1' : '';
        const reply = await intruder(route.method, `${path}${query}`);
        expect(reply.status).toBe(404);
        expect(reply.body).toEqual({ error: { code: 404, message: `inbox not found: ${a.id}` } });
        expect(reply.text).not.toContain(secret);
      },
    ),
    { numRuns: 150 },
  );
  // Addresses: the intruder cannot take them either, and learns only that they are taken.
  for (const inbox of inboxes) {
    const reply = await intruder('POST', '/v1/inboxes', { username: inbox.email.split('@')[0] });
    expect(reply.status).toBe(409);
    expect(reply.text).not.toContain(inbox.id);
  }
  // And the owner still has everything.
  for (const inbox of inboxes) {
    expect((await owner('GET', `/v1/inboxes/${inbox.id}`)).body.message_count).toBe(1);
    expect((await owner('GET', `/v1/inboxes/${inbox.id}/messages/${inbox.messageId}`)).body.subject).toBe(secret);
  }
  expect(tried).toBe(150);
});
