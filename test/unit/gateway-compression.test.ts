/**
 * The local gateway's gzip (local/gateway-compression.ts): as API Gateway's minimumCompressionSize, and on the thread
 * pool, so that a 6 MB message answer being compressed does not hold the event loop (gzipSync did). Counted in
 * turns of the event loop, not time.
 */
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { COMPRESSION_MIN_BYTES } from '../../lambdas/contract/gateway-responses';
import { DOWNLOAD_PATH } from '../../lambdas/core/downloads';
import { compressed } from '../../local/gateway-compression';
import { turnsDuring } from '../support/event-loop';

const request = (url: string, acceptEncoding = 'gzip, br') => ({ url, headers: { 'accept-encoding': acceptEncoding } }) as unknown as http.IncomingMessage;

it('gzips a JSON answer the client accepts gzip for, off the event loop', async () => {
  // About 6 MB of JSON that does not compress to nothing: what a full message answer can be.
  const body = Buffer.from(JSON.stringify({ text: randomBytes(4_500_000).toString('base64') }));
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Vary: 'Origin' };
  const { result, turns } = await turnsDuring(() => compressed(request('/v1/inboxes/x/messages/y'), body, headers));
  expect(gunzipSync(result).equals(body)).toBe(true);
  expect(headers).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Origin, Accept-Encoding' });
  expect(turns).toBeGreaterThan(5); // gzipSync: 0
});

it('leaves small answers, other types, download links and clients without gzip as they are', async () => {
  const json = { 'Content-Type': 'application/json' };
  const small = Buffer.alloc(COMPRESSION_MIN_BYTES - 1, 'a');
  const large = Buffer.alloc(COMPRESSION_MIN_BYTES * 4, 'a');
  for (const [req, body, headers] of [
    [request('/v1/x'), small, { ...json }],
    [request('/v1/x'), large, { 'Content-Type': 'application/octet-stream' }],
    [request(`${DOWNLOAD_PATH}abc`), large, { ...json }],
    [request('/v1/x', 'identity'), large, { ...json }],
  ] as const) {
    const out: Record<string, string> = { ...headers };
    expect(await compressed(req, body, out)).toBe(body);
    expect(out['Content-Encoding']).toBeUndefined();
  }
});
