/**
 * Webhook delivery is fair between accounts (issue 13): one account's receiver that never answers holds only its
 * share of the dispatcher's delivery slots. The dispatcher is the same in every form, so one stack of the default
 * (embedded) form, started here with 8 slots and an 8 s attempt timeout, shows it; a real HTTP receiver on
 * 127.0.0.1 hangs the hog's deliveries. Apart from webhooks.test.ts, which the dynamodb and aws-template projects
 * run too, because only this form needs it.
 */
import { http } from '../support/http';
import { sendMail } from '../support/mail';
import { startStack } from '../support/stack';
import { startReceiver, type Receiver } from '../support/webhook-receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

it("one account's receiver that never answers holds a quarter of the delivery slots, not everyone's", async () => {
  const own = await startStack({
    store: 'embedded',
    env: { TEMPMAIL_WEBHOOK_CONCURRENCY: '8', TEMPMAIL_WEBHOOK_TIMEOUT_MS: '8000', TEMPMAIL_WEBHOOK_RETRY_SCHEDULE: '60' },
  });
  try {
    const api = (key: string) => http(own.apiUrl, key);
    const create = async (key: string, path: string, count: number) => {
      const inbox = (await api(key)('POST', '/v1/inboxes', {})).body as { id: string; email: string };
      for (let i = 0; i < count; i++) expect((await api(key)('POST', '/v1/webhooks', { url: receiver.url(path), inbox_id: inbox.id })).status).toBe(201);
      return inbox;
    };
    const hog = await create(own.keys.enterprise, '/hog', 10);
    const other = await create(own.keys.startup, '/other', 1);
    receiver.script('/hog', Array(10).fill('hang'));
    await sendMail(own.smtpPort, { to: hog.email, subject: 'ten deliveries that hang', text: 'x' });
    await receiver.waitFor('/hog', 2);
    await sendMail(own.smtpPort, { to: other.email, subject: 'one delivery', text: 'y' });
    // Delivered while the first account's attempts still hang (for 8 s): before, they held all 8 slots.
    await receiver.waitFor('/other', 1, 4_000);
    expect(receiver.received('/hog')).toHaveLength(2); // its share: 8 / 4
  } finally {
    await own.stop();
  }
}, 60_000);
