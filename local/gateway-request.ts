/**
 * A Node request's headers and query as API Gateway's proxy event carries them (single and multi-value maps), and its
 * `Expect: 100-continue`, for the local gateway (local/gateway.ts).
 */
import type http from 'node:http';
import { MAX_BODY_BYTES } from '../lambdas/core/limits';

/**
 * `Expect: 100-continue`: a body that may be sent is asked for with 100 Continue; one declared past the limit is not,
 * so that its 413 reaches the client before it uploads (Node's own 100 went out first, and the 413 then met a client
 * still sending: curl's "Broken pipe" with no status, in 2 of 7 tries of 2 MB).
 */
export function askForBodies(server: http.Server): void {
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (Number(req.headers['content-length'] ?? 0) <= MAX_BODY_BYTES) res.writeContinue();
    server.emit('request', req, res);
  });
}

export function headersOf(req: http.IncomingMessage) {
  // Null-prototype maps: a header or parameter named __proto__ is data, not a prototype.
  const headers: Record<string, string> = Object.create(null);
  const multi: Record<string, string[]> = Object.create(null);
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const value = req.rawHeaders[i + 1];
    headers[name] = value;
    (multi[name] ??= []).push(value);
  }
  return { headers, multi };
}

export function queryOf(url: URL) {
  if ([...url.searchParams.keys()].length === 0) return { single: null, multi: null };
  const single: Record<string, string> = Object.create(null);
  const multi: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    single[name] = value; // API Gateway keeps the last value
    (multi[name] ??= []).push(value);
  }
  return { single, multi };
}
