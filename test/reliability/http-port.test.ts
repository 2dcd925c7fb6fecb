/**
 * The HTTP port under stalled uploads, over raw sockets: 300 connections each announce a 1 MB body on
 * POST /v1/inboxes with a valid key, send 960 KB and stall. The gateway's memory stays bounded (bodies in flight share
 * one budget; the rest are refused in the error format), a GET still answers, one address cannot hold more than its
 * share of connections, and a body that never arrives is given up.
 */
import net from 'node:net';
import { http } from '../support/http';
import { eventually } from '../support/mail';
import { rssMb } from '../support/poison';
import { MAX_HTTP_CONNECTIONS_PER_CLIENT } from '../../local/gateway';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack({ env: { TEMPMAIL_RATE_LIMITS: 'off' } });
});
afterAll(() => stack.stop());

const port = () => Number(new URL(stack.apiUrl).port);

/** A raw connection that sends `head` and `bytes` of body, then stalls; what the server answers, as it comes. */
function stalledUpload(localAddress: string, head: string, bytes: number) {
  const socket = net.connect({ host: '127.0.0.1', port: port(), localAddress });
  socket.on('error', () => undefined); // refused or closed by the server: what the test looks at
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
  const sent = new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.write(head);
    socket.write(Buffer.alloc(bytes, 'a'), () => resolve());
  });
  return { socket, sent, answer: () => answer };
}

const uploadHead = (key: string) =>
  `POST /v1/inboxes HTTP/1.1\r\nHost: local\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024}\r\n\r\n`;

it('bounds the memory 300 stalled 1 MB uploads take, refusing the excess in the error format while a GET answers', async () => {
  const baseline = rssMb(stack.pid());
  // From six addresses, 50 each: under the per-address cap, so only the body budget stands in the way.
  const uploads = Array.from({ length: 300 }, (_, i) => stalledUpload(`127.0.0.${2 + (i % 6)}`, uploadHead(stack.keys.enterprise), 960 * 1024));
  await Promise.all(uploads.map((u) => u.sent));
  await new Promise((r) => setTimeout(r, 1_000)); // the server has read what it will read
  const grown = rssMb(stack.pid()) - baseline;
  const get = await http(stack.apiUrl, stack.keys.enterprise)('GET', '/v1/domains');
  // Every upload ends: the excess at once with 503, those the budget took with 408 once their time is up. A client
  // that keeps sending after its 503 may see the connection reset before it reads the answer (TCP drops what it had
  // not read when data arrives at a closed socket): that is a refusal too.
  await eventually(async () => uploads.every((u) => u.answer() !== '' || u.socket.destroyed || u.socket.readableEnded), 30_000, 'every upload answered or closed');
  const statuses = uploads.map((u) => u.answer().slice(9, 12) || 'reset');
  const refused = uploads.map((u) => u.answer()).filter((a) => a.startsWith('HTTP/1.1 503'));
  console.log(`http port: 300 stalled 1 MB uploads: RSS ${baseline.toFixed(0)} MB → +${grown.toFixed(0)} MB; ${refused.length} refused with 503, ${statuses.filter((c) => c === '408').length} held until 408, ${statuses.filter((c) => c === 'reset').length} reset`);
  for (const u of uploads) u.socket.destroy();
  expect(get.status).toBe(200);
  expect([...new Set(statuses)].filter((c) => !['503', '408', 'reset'].includes(c))).toEqual([]);
  expect(statuses.filter((c) => c === '408').length).toBeLessThanOrEqual(32); // the 32 MB budget holds 32 of them
  expect(refused[0]).toMatch(/Retry-After: 1/i);
  expect(refused[0]).toMatch(/\{"error":\{"code":503,"message":"too many request bodies in flight; retry shortly"\}\}$/);
  // Held bodies are at most the 32 MB budget; before it, 300 × 960 KB stayed in memory (about 290 MB).
  expect(grown).toBeLessThan(120);
}, 120_000);

it('refuses a request with a bad key before reading its body, and an unknown route too', async () => {
  const badKey = stalledUpload('127.0.0.8', uploadHead('tm_not_a_key'), 64 * 1024);
  const noRoute = stalledUpload('127.0.0.8', `POST /v1/nothing HTTP/1.1\r\nHost: local\r\nContent-Length: ${1024 * 1024}\r\n\r\n`, 64 * 1024);
  await Promise.all([badKey.sent, noRoute.sent]);
  await new Promise((r) => setTimeout(r, 500));
  // Answered at once, the body never awaited (before, both waited for 1 MB that never came).
  expect(badKey.answer()).toMatch(/^HTTP\/1.1 401 /);
  expect(noRoute.answer()).toMatch(/^HTTP\/1.1 404 /);
  badKey.socket.destroy();
  noRoute.socket.destroy();
});

it('caps the connections one client address holds, with 429 in the error format', async () => {
  const sockets = Array.from({ length: MAX_HTTP_CONNECTIONS_PER_CLIENT + 12 }, () => stalledUpload('127.0.0.9', 'GET /v1/domains HTTP/1.1\r\nHost: local\r\n', 0)); // headers never end
  await new Promise((r) => setTimeout(r, 1_000));
  const refused = sockets.filter((s) => s.answer().startsWith('HTTP/1.1 429'));
  expect(refused.length).toBe(12);
  expect(refused[0].answer()).toMatch(/"message":"too many connections from [^"]+; close some and retry"/);
  // Another address is served meanwhile.
  expect((await http(stack.apiUrl, stack.keys.enterprise)('GET', '/v1/domains')).status).toBe(200);
  for (const s of sockets) s.socket.destroy();
});

it('gives up a body that does not arrive in time: 408, and the connection closed', async () => {
  const upload = stalledUpload('127.0.0.10', uploadHead(stack.keys.enterprise), 1024);
  await upload.sent;
  await new Promise<void>((resolve) => upload.socket.once('close', () => resolve()));
  expect(upload.answer()).toMatch(/^HTTP\/1.1 408 [\s\S]*"message":"the request body was not received within 10 s"/);
}, 30_000);

it('Expect: 100-continue: a body declared past the limit is refused before it is asked for; a small one is asked for and served', async () => {
  /** Sends the head with Expect: 100-continue, then the body only if asked; what came back first, and the status. */
  const ask = (length: number, body: string) =>
    new Promise<{ first: string; status: number }>((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port: port() });
      socket.on('error', reject);
      let answer = '';
      let sentBody = false;
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
        if (!sentBody && answer.startsWith('HTTP/1.1 100 ')) {
          sentBody = true;
          socket.write(body);
        }
        const final = /HTTP\/1\.1 (?!100 )(\d{3}) /.exec(answer);
        if (final && answer.includes('\r\n\r\n', final.index)) {
          socket.destroy();
          resolve({ first: answer.slice(0, 12), status: Number(final[1]) });
        }
      });
      socket.write(`POST /v1/inboxes HTTP/1.1\r\nHost: local\r\nX-API-Key: ${stack.keys.enterprise}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`);
    });
  // Past the limit: the 413 is the first thing the client hears (Node's automatic 100 Continue came first before).
  expect(await ask(2 * 1024 * 1024, '')).toEqual({ first: 'HTTP/1.1 413', status: 413 });
  expect(await ask(2, '{}')).toEqual({ first: 'HTTP/1.1 100', status: 201 });
});

it('lets a client that uploads a body past the limit without waiting read its 413, not a reset connection', async () => {
  // fetch sends a whole body without Expect: 100-continue; closing at the 413 cut its upload (EPIPE: "fetch failed").
  const length = 1_100_000;
  const outcome = await new Promise<{ answer: string; error?: string; endedAfterBody?: boolean }>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: port() });
    let answer = '';
    let bodySent = false;
    let endedAfterBody: boolean | undefined;
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('end', () => (endedAfterBody = bodySent));
    socket.on('error', (error) => resolve({ answer, error: (error as NodeJS.ErrnoException).code, endedAfterBody }));
    socket.on('close', () => resolve({ answer, endedAfterBody }));
    socket.write(`POST /v1/inboxes HTTP/1.1\r\nHost: local\r\nX-API-Key: ${stack.keys.enterprise}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
    socket.write(Buffer.alloc(64 * 1024, 0x20));
    // Once the 413 is in, the rest of the body, as a client that does not read while it writes sends it.
    const sendRest = setInterval(() => {
      if (!answer.includes('\r\n\r\n')) return;
      clearInterval(sendRest);
      socket.write(Buffer.alloc(length - 64 * 1024, 0x20), () => (bodySent = true));
    }, 20);
  });
  expect(outcome.error).toBeUndefined();
  expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 [\s\S]*"code":413/);
  // The server ends the connection once the whole body is in, not under the upload (nor keeps it for another request).
  expect(outcome.endedAfterBody).toBe(true);
  expect((await fetch(`${stack.apiUrl}/v1/domains`, { headers: { 'X-API-Key': stack.keys.enterprise } })).status).toBe(200);
});
