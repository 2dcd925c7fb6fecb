/**
 * `npm run bench:api`: GET inbox and a 50-message page of list messages through the local gateway, 10 concurrent
 * clients, beside a bare Node HTTP server answering the same JSON (the ceiling on this machine).
 */
import http from 'node:http';
import { messageIdFrom } from '../lambdas/core/ids';
import type { MessageRecord } from '../lambdas/core/model';
import { startStack } from '../test/support/stack';
import { storesFor } from '../test/support/store';
import { fmt, load } from './load';
import { epochSeconds } from '../lambdas/core/inbox';

const CONCURRENCY = 10;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

async function main() {
  const stack = await startStack({
    env: { TEMPMAIL_PLAN_OVERRIDES: JSON.stringify({ enterprise: { requests_per_minute: 100_000_000 } }), TEMPMAIL_AUTHORIZER_CACHE_SECONDS: '60' },
  });
  try {
    const headers = { 'X-API-Key': stack.keys.enterprise };
    const created = (await (await fetch(`${stack.apiUrl}/v1/inboxes`, { method: 'POST', headers })).json()) as { id: string };
    const store = storesFor(stack);
    const inbox = (await store.inboxes.getInbox(created.id))!;
    for (let i = 0; i < 60; i++) {
      const id = messageIdFrom(`bench-${i}`, Date.now() - 60_000 + i);
      const message: MessageRecord = {
        id, inbox_id: inbox.id, from: `s${i}@example.com`, from_name: 'Sender', to: inbox.email, subject: `Subject ${i}`,
        received_at: new Date().toISOString(), size: 2048, text: 'x'.repeat(1500), html: '', attachments: [], codes: [], links: [],
        auth: { spf: 'DISABLED', dkim: 'DISABLED', dmarc: 'DISABLED', spam: 'DISABLED', virus: 'DISABLED' }, raw_key: 'x',
      };
      await store.inboxes.putMessage(message, inbox, { nowEpoch: epochSeconds(Date.now()), day: new Date().toISOString().slice(0, 10), dailyLimit: 1e9 });
    }
    const getUrl = `${stack.apiUrl}/v1/inboxes/${inbox.id}`;
    const listUrl = `${stack.apiUrl}/v1/inboxes/${inbox.id}/messages?limit=50`;
    const getBody = await (await fetch(getUrl, { headers })).text();
    const listBody = await (await fetch(listUrl, { headers })).text();

    // Warm-up, then measure.
    await load(getUrl, headers, CONCURRENCY, 2);
    const getInbox = await load(getUrl, headers, CONCURRENCY, SECONDS);
    const listMessages = await load(listUrl, headers, CONCURRENCY, SECONDS);
    const listOneClient = await load(listUrl, headers, 1, SECONDS);

    const bare = http.createServer((req, res) => {
      const body = req.url?.includes('messages') ? listBody : getBody;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', () => r()));
    const port = (bare.address() as { port: number }).port;
    await load(`http://127.0.0.1:${port}/x`, {}, CONCURRENCY, 1);
    const bareGet = await load(`http://127.0.0.1:${port}/inbox`, {}, CONCURRENCY, SECONDS);
    const bareList = await load(`http://127.0.0.1:${port}/messages`, {}, CONCURRENCY, SECONDS);
    bare.close();

    console.log(`\nbench:api — ${CONCURRENCY} concurrent clients, ${SECONDS} s each, keep-alive, on this machine`);
    console.log(`  GET inbox            (local gateway)  ${fmt(getInbox)}`);
    console.log(`  list 50 messages     (local gateway)  ${fmt(listMessages)}`);
    console.log(`  list 50, one client  (local gateway)  ${fmt(listOneClient)}, mean ${listOneClient.mean.toFixed(2)} ms   (ceiling 3 ms mean)`);
    console.log(`  same JSON, GET inbox (bare node http) ${fmt(bareGet)}`);
    console.log(`  same JSON, list 50   (bare node http) ${fmt(bareList)}`);
    console.log(`  GET inbox: ${(getInbox.rps / bareGet.rps).toFixed(2)} × bare node http   (target at least 0.25 ×); TEMPMAIL_STORE=${stack.store}`);
    console.log(`  list page size: ${Buffer.byteLength(listBody)} bytes`);
  } finally {
    await stack.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
