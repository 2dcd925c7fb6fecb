/**
 * The local gateway's response compression, as API Gateway's minimumCompressionSize: gzip for clients that accept it,
 * on the thread pool. A full message answer is up to 6 MB of JSON, and gzip of it on the event loop (gzipSync) held
 * every other request and SMTP session while it ran; download links are served as stored.
 */
import type http from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { COMPRESSION_MIN_BYTES } from '../lambdas/contract/gateway-responses';
import { DOWNLOAD_PATH } from '../lambdas/core/downloads';

const gzipped = promisify(gzip);

/** The body to send for `req`: gzipped (and `headers` saying so) when it is worth it and the client accepts it. */
export async function compressed(req: http.IncomingMessage, body: Buffer, headers: Record<string, string>): Promise<Buffer> {
  const accepts = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const type = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  const compressible = /^(text\/|application\/(json|javascript)|image\/svg)/.test(type);
  if (!accepts || !compressible || body.length < COMPRESSION_MIN_BYTES || (req.url ?? '').startsWith(DOWNLOAD_PATH)) return body;
  headers['Content-Encoding'] = 'gzip';
  headers.Vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';
  return gzipped(body);
}
