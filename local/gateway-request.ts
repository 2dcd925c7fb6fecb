/**
 * A Node request's headers and query as API Gateway's proxy event carries them (single and multi-value maps), for
 * the local gateway (local/gateway.ts).
 */
import type http from 'node:http';

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
