/**
 * The LinkProber port: asks each URL with HEAD (GET where the server answers HEAD with 405 or 501), follows its
 * redirects, and reads no body (the connection is dropped once the status is in). Under the webhook sender's address
 * rule (lambdas/core/webhook-destinations.ts refusedAddress, as lambdas/webhooks/http-sender.ts applies it): an IP
 * literal is checked before the request and a host name by the lookup hook on the connection itself
 * (lambdas/net/guarded-lookup.ts), every address it resolves to, so the socket connects to an address that passed.
 * Where private destinations are allowed (the local form's TEMPMAIL_WEBHOOK_ALLOW_PRIVATE, never on AWS) only
 * link-local addresses are refused: a link in a stranger's mail never reaches the instance metadata. Every hop of
 * a redirect chain is checked again. Bounded: a few requests at a time, each within its timeout, all by the deadline.
 */
import http from 'node:http';
import https from 'node:https';
import type { LinkOutcome, LinkReport, LinkTarget } from '../core/checks/links';
import type { LinkProber } from '../core/ports';
import { refusedLiteral } from '../core/webhook-destinations';
import { guardedLookup, RefusedAddress } from '../net/guarded-lookup';

/** One request's longest wait for its status. */
export const LINK_TIMEOUT_MS = 5_000;
/** Redirects followed per URL. */
export const MAX_REDIRECTS = 5;
/** Requests in flight at once. */
const CONCURRENCY = 8;
const USER_AGENT = 'TempMail-Checks/1.0 (link check)';
const BUDGET_SPENT = 'the time budget of the link checks was spent';

export interface LinkProbeOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
}

type Hop = { status: number; location?: string } | { error: string; refused?: boolean };

export function linkProber(options: LinkProbeOptions): LinkProber {
  const timeoutMs = options.timeoutMs ?? LINK_TIMEOUT_MS;
  const lookup = guardedLookup(options.allowPrivate);

  /** Why a URL may not be asked before any DNS (scheme, a forbidden IP literal), or null. */
  const vet = (url: URL): string | null => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} is not http or https`;
    return refusedLiteral(url, options.allowPrivate);
  };

  const ask = (url: URL, method: 'HEAD' | 'GET', waitMs: number): Promise<Hop> =>
    new Promise<Hop>((resolve) => {
      const client = url.protocol === 'https:' ? https : http;
      const request = client.request(url, { method, headers: { 'User-Agent': USER_AGENT, Accept: '*/*' }, agent: false, lookup });
      const timer = setTimeout(() => {
        request.destroy();
        resolve({ error: `no answer within ${waitMs} ms` });
      }, waitMs);
      request.on('response', (response) => {
        clearTimeout(timer);
        const location = response.headers.location;
        // The status is all a link check needs: no body is read.
        response.destroy();
        resolve({ status: response.statusCode ?? 0, location });
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const refused = error instanceof RefusedAddress;
        resolve({ error: refused ? error.message : `${error.code ?? 'error'}: ${error.message}`.slice(0, 200), refused });
      });
      request.end();
    });

  async function probeOne(target: LinkTarget, deadline: number): Promise<LinkOutcome> {
    const started = Date.now();
    const took = () => Date.now() - started;
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      return { ...target, redirects: 0, ms: 0, refused: 'not a URL' };
    }
    for (let redirects = 0; ; redirects++) {
      const refused = vet(url);
      if (refused) return { ...target, redirects, ms: took(), refused, ...(redirects ? { finalUrl: url.href } : {}) };
      const wait = Math.min(timeoutMs, deadline - Date.now());
      if (wait <= 0) return { ...target, redirects, ms: took(), error: BUDGET_SPENT };
      let hop = await ask(url, 'HEAD', wait);
      if ('status' in hop && (hop.status === 405 || hop.status === 501)) hop = await ask(url, 'GET', Math.max(1, Math.min(timeoutMs, deadline - Date.now())));
      if ('error' in hop && !hop.refused && Date.now() >= deadline) return { ...target, redirects, ms: took(), error: BUDGET_SPENT };
      if ('error' in hop) {
        if (hop.refused) return { ...target, redirects, ms: took(), refused: hop.error, ...(redirects ? { finalUrl: url.href } : {}) };
        return { ...target, redirects, ms: took(), error: redirects ? `${hop.error} (at ${url.href})` : hop.error };
      }
      const done = { ...target, status: hop.status, redirects, ms: took(), ...(redirects ? { finalUrl: url.href } : {}) };
      if (hop.status < 300 || hop.status >= 400 || !hop.location) return done;
      if (redirects === MAX_REDIRECTS) return { ...target, redirects, ms: took(), error: `more than ${MAX_REDIRECTS} redirects (the last to ${hop.location.slice(0, 200)})` };
      try {
        url = new URL(hop.location, url);
      } catch {
        return done;
      }
    }
  }

  return {
    async probe(targets: LinkTarget[], deadline: number): Promise<LinkReport> {
      const outcomes: (LinkOutcome | undefined)[] = new Array(targets.length);
      let next = 0;
      const worker = async () => {
        while (next < targets.length && Date.now() < deadline) {
          const i = next++;
          outcomes[i] = await probeOne(targets[i], deadline);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, targets.length) }, worker));
      const asked = outcomes.filter((o): o is LinkOutcome => o !== undefined);
      const late = asked.filter((o) => o.error === BUDGET_SPENT).length + (targets.length - asked.length);
      return { outcomes: asked, cutShort: late ? `the time budget of the link checks was spent: ${late} of ${targets.length} URLs not answered` : null };
    },
  };
}
