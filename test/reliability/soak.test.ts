/**
 * Soak: SOAK_MESSAGES (10,000 in CI) messages into 200 inboxes, then delete them all: lists and totals agree
 * throughout, and the inboxes' table items and bucket objects return to zero.
 */
import { http } from '../support/http';
import { eventually, transport } from '../support/mail';
import { startStack, type StackHandle } from '../support/stack';
import { storesFor } from '../support/store';

// 10,000 in CI (CI=true), 50 per inbox: 20,000 took 105-118 s of CI's 25 minutes (its figures: docs/PERFORMANCE.md);
// a fifth of it for a quick local `npm test`. SOAK_MESSAGES overrides both.
const MESSAGES = Number(process.env.SOAK_MESSAGES ?? (process.env.CI ? 10_000 : 2_000));
const INBOXES = Number(process.env.SOAK_INBOXES ?? 200);
let stack: StackHandle;

beforeAll(async () => {
  stack = await startStack({ env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ enterprise: { requests_per_minute: 10_000_000, emails_per_day: 10_000_000 } }) } });
});
afterAll(async () => {
  // What the stack logged at warning level or worse, so a failure here can be diagnosed from CI's output.
  const problems = stack.output().split('\n').filter((l) => /"level":"(WARN|ERROR)"|\[(gateway|smtp|local)\]/.test(l) && !l.includes('[smtp] received') && !l.includes('[smtp] last second'));
  if (problems.length) console.log(`soak: stack problems (${problems.length}):\n${problems.slice(-20).join('\n').slice(0, 8000)}`);
  await stack.stop();
});

it(`takes ${MESSAGES} messages into ${INBOXES} inboxes and cleans up to zero`, async () => {
  const api = http(stack.apiUrl, stack.keys.enterprise);
  const inboxes: { id: string; email: string }[] = [];
  for (let i = 0; i < INBOXES; i++) inboxes.push((await api('POST', '/v1/inboxes', {})).body);
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      const pool = transport(stack.smtpPort);
      while (next < MESSAGES) {
        const n = next++;
        await pool.sendMail({ from: 'soak@example.com', to: inboxes[n % INBOXES].email, subject: `soak ${n}`, text: `body ${n} `.repeat(100) });
      }
      pool.close();
    }),
  );
  const sendSeconds = (Date.now() - started) / 1000;
  const perInbox = MESSAGES / INBOXES;
  // Lists and totals agree, for every inbox.
  for (const inbox of inboxes) {
    await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count === perInbox, 60_000, `inbox ${inbox.id} complete`);
    let listed = 0;
    let cursor = '';
    do {
      const page = (await api('GET', `/v1/inboxes/${inbox.id}/messages?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).body;
      expect(page.total).toBe(perInbox);
      listed += page.messages.length;
      cursor = page.next_cursor ?? '';
    } while (cursor);
    expect(listed).toBe(perInbox);
  }
  const store = storesFor(stack);
  const objectsBefore = (await store.blobs.list('inboxes/')).length;
  for (const inbox of inboxes) expect((await api('DELETE', `/v1/inboxes/${inbox.id}`)).body).toEqual({ deleted: true });
  const items = await store.inboxItemsLeft();
  const objects = [...(await store.blobs.list('inboxes/')), ...(await store.blobs.list('inbound/')), ...(await store.blobs.list('spool/'))];
  console.log(`soak: ${MESSAGES} messages in ${sendSeconds.toFixed(1)} s (${(MESSAGES / sendSeconds).toFixed(0)}/s), ${objectsBefore} objects before delete; after: ${items.length} items, ${objects.length} objects`);
  expect(items).toEqual([]);
  expect(objects).toEqual([]);
}, 900_000);
