/**
 * The one HTTP attempt of a delivery, the same in both forms, with the SSRF rule applied where it cannot be
 * raced: the host is resolved by our own lookup hook on the connection itself, every address it resolves to is
 * checked (lambdas/core/webhook-destinations.ts), and the socket connects to an address that passed. A name that pointed to a
 * public address at creation and to 169.254.169.254 now fails this attempt; it is never fetched. Redirects are not
 * followed (a 3xx is a failed attempt), nothing of the answer is read past a few KB, and the whole attempt is
 * bounded by the timeout.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { WebhookSender } from '../core/ports';
import { refusedAddress, refusedLiteral, urlHost } from '../core/webhook-destinations';
import { guardedLookup, RefusedAddress } from '../net/guarded-lookup';
import { responseExcerpt, type AttemptResult } from '../core/webhook-retries';

/** Read at most this much of an answer (only an excerpt is kept); the connection is dropped past it. */
const MAX_READ_BYTES = 16 * 1024;
export const USER_AGENT = 'TempMail-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface SenderOptions {
  timeoutMs: number;
  /** The local form's default: loopback and private addresses (and http) allowed. Never on AWS. */
  allowPrivate: boolean;
}

export class HttpWebhookSender implements WebhookSender {
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(private readonly options: SenderOptions) {
    // Kept-alive connections: a receiver getting a stream of events is not handshaked again for each. A kept
    // socket is already connected to a checked address.
    const agentOptions = { keepAlive: true, maxSockets: 64, timeout: 4_000, lookup: guardedLookup(options.allowPrivate) };
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  }

  async vet(url: URL): Promise<string | null> {
    const host = urlHost(url);
    if (isIP(host)) return refusedAddress(host, this.options.allowPrivate);
    // Private destinations allowed: a name is checked where it is used, at each delivery (the lookup hook).
    if (this.options.allowPrivate) return null;
    try {
      const addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
      if (addresses.length === 0) return `${host} does not resolve`;
      const bad = addresses.map((a) => refusedAddress(a.address, false)).find(Boolean);
      return bad ? `${host} resolves to ${bad}` : null;
    } catch (error) {
      return `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
  }

  post(target: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = Date.now();
    const took = () => Date.now() - started;
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const timer: { id?: NodeJS.Timeout } = {};
      const finish = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer.id);
        resolve(result);
      };
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return finish({ error: 'invalid url', durationMs: 0 });
      }
      if (!this.options.allowPrivate && url.protocol !== 'https:') return finish({ error: 'refused: only https URLs are delivered to', durationMs: 0 });
      const literal = refusedLiteral(url, this.options.allowPrivate);
      if (literal) return finish({ error: `refused: ${literal}`, durationMs: 0 });
      const client = url.protocol === 'https:' ? https : http;
      const payload = Buffer.from(body, 'utf8');
      const request = client.request(url, {
        method: 'POST',
        agent: url.protocol === 'https:' ? this.agents.https : this.agents.http,
        headers: { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT, 'Content-Length': String(payload.length), ...headers },
      });
      timer.id = setTimeout(() => {
        request.destroy();
        finish({ error: `timed out after ${this.options.timeoutMs} ms`, durationMs: took() });
      }, this.options.timeoutMs);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => finish({ status: response.statusCode ?? 0, excerpt: responseExcerpt(Buffer.concat(chunks)), durationMs: took() });
        response.on('data', (chunk: Buffer) => {
          // The part within the limit is kept (a first chunk past it still gives the excerpt).
          if (size < MAX_READ_BYTES) chunks.push(chunk.subarray(0, MAX_READ_BYTES - size));
          size += chunk.length;
          if (size > MAX_READ_BYTES) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
        response.on('aborted', done);
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        const why = error instanceof RefusedAddress ? `refused: ${error.message}` : `${error.code ?? 'error'}: ${error.message}`.slice(0, 200);
        finish({ error: why, durationMs: took() });
      });
      request.end(payload);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
