/** Secrets: the logs of a full run never contain an API key, and the table holds keys only as hashes. */
import { http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { startStack } from '../support/stack';
import { storesFor } from '../support/store';
import { hashApiKey } from '../../lambdas/core/ids';

it('never logs a key and stores keys hashed', async () => {
  const stack = await startStack({ env: { LOG_LEVEL: 'DEBUG' } });
  try {
    const api = http(stack.apiUrl, stack.keys.dev);
    const inbox = (await api('POST', '/v1/inboxes', {})).body;
    await sendMail(stack.smtpPort, { to: inbox.email, subject: 'hi', text: 'x' });
    await eventually(async () => (await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count === 1, 10_000, 'mail');
    for (let i = 0; i < 15; i++) await api('GET', '/v1/domains'); // 429s
    await http(stack.apiUrl, `${stack.keys.dev}x`)('GET', '/v1/domains'); // 401 with a near-miss key
    await http(stack.apiUrl, stack.keys.free)('GET', '/v1/domains'); // 403
    await api('GET', `/v1/inboxes/${inbox.id}/messages?cursor=bad`); // 400
    await stack.stop();
    const logs = stack.output();
    expect(logs.length).toBeGreaterThan(0);
    for (const key of Object.values(stack.keys)) {
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(key.slice(8)); // nor any large part of it
    }
    await stack.restart();
    const items = await storesFor(stack).keys.listKeys();
    const dump = JSON.stringify(items);
    for (const key of Object.values(stack.keys)) {
      expect(dump).not.toContain(key);
      expect(items.some((k) => k.key_hash === hashApiKey(key))).toBe(true);
    }
  } finally {
    await stack.stop();
  }
});
