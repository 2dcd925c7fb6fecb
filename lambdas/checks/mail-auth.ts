/**
 * The MailAuthenticator port on mailauth (the nodemailer authors' SPF, DKIM, DMARC and ARC verifier, MIT). It reads
 * the client address and HELO from the topmost Received field, which the receiving side wrote itself (SES on AWS,
 * local/trace-headers.ts in both local forms), and MAIL FROM from the envelope the message kept. DNS goes through the
 * system's resolver, or the servers the config names (TEMPMAIL_CHECK_DNS), each query bounded in time and all of
 * them in number; a test passes a resolver function instead, so no test depends on the internet.
 */
import { Resolver } from 'node:dns/promises';
import { authenticate, type AuthStatus, type AuthenticateResult, type DNSResolver } from 'mailauth';
import type { AuthenticationReport, AuthOutcome } from '../core/checks/authentication';
import type { CheckResult } from '../core/checks/model';
import type { MailAuthenticator } from '../core/ports';

/** One DNS query waits at most this long: a resolver that does not answer is temperror, not a hung request. */
export const DNS_QUERY_TIMEOUT_MS = 2_000;
/**
 * Queries one verification may make: SPF's own limit is 10 lookups (RFC 7208 §4.6.4) plus its void lookups, DMARC
 * needs one or two, each DKIM signature one; past this a mail of many signatures gets temperror for the rest.
 */
export const MAX_DNS_QUERIES = 40;
/** How the verifier names itself in its comments (the Authentication-Results authserv-id). */
const VERIFIER = 'tempmail-checks';

export interface MailAuthOptions {
  /** DNS servers (`ip` or `ip:port`); empty: the system's. */
  servers?: readonly string[];
  /** A resolver function in place of DNS (tests); mailauth's own option. */
  resolve?: DNSResolver;
  queryTimeoutMs?: number;
}

class DnsError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function boundedResolver(options: MailAuthOptions): DNSResolver {
  const timeoutMs = options.queryTimeoutMs ?? DNS_QUERY_TIMEOUT_MS;
  let resolve = options.resolve;
  if (!resolve) {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (options.servers?.length) resolver.setServers([...options.servers]);
    resolve = (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>;
  }
  const inner = resolve;
  let queries = 0;
  return async (name, rrtype) => {
    if (++queries > MAX_DNS_QUERIES) throw new DnsError(`DNS query budget spent (${MAX_DNS_QUERIES} queries) before ${rrtype} ${name}`, 'ETIMEOUT');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DnsError(`DNS ${rrtype} ${name}: no answer within ${timeoutMs} ms`, 'ETIMEOUT')), timeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([inner(name, rrtype), late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

const RESULTS: Record<string, CheckResult> = {
  pass: 'pass',
  fail: 'fail',
  softfail: 'softfail',
  neutral: 'neutral',
  none: 'none',
  policy: 'policy',
  temperror: 'temperror',
  temperr: 'temperror',
  permerror: 'permerror',
  skipped: 'none',
};

const outcomeOf = (status: AuthStatus | undefined, fallback: string): AuthOutcome => ({
  result: RESULTS[status?.result ?? 'none'] ?? 'neutral',
  reason: (status?.comment ?? fallback).slice(0, 500),
});

export function reportOf(r: AuthenticateResult): AuthenticationReport {
  const spf = r.spf ? { ...outcomeOf(r.spf.status, r.spf.info), domain: r.spf.domain ?? '', clientIp: r.spf['client-ip'] ?? '' } : { result: 'none' as const, reason: 'not checked', domain: '', clientIp: '' };
  const dkim = (r.dkim?.results ?? [])
    .filter((d) => d.signingDomain)
    .map((d) => ({ ...outcomeOf(d.status, d.info), domain: d.signingDomain, selector: d.selector ?? '', aligned: Boolean(d.status.aligned) }));
  const dmarc = r.dmarc
    ? { ...outcomeOf(r.dmarc.status, r.dmarc.error ?? r.dmarc.info), domain: r.dmarc.domain ?? '', policy: r.dmarc.policy ?? r.dmarc.p ?? null }
    : { result: 'none' as const, reason: 'no From domain to look up', domain: '', policy: null };
  if (r.dmarc && r.dmarc.error && dmarc.result === 'temperror') dmarc.reason = r.dmarc.error.slice(0, 500);
  const arc = r.arc ? outcomeOf(r.arc.status, r.arc.info ?? 'no ARC chain') : { result: 'none' as const, reason: 'no ARC chain' };
  return { spf, dkim, dmarc, arc };
}

/** Every part temperror with the one reason: the budget ran out before the verifier answered. */
const cutShort = (reason: string): AuthenticationReport => ({
  spf: { result: 'temperror', reason, domain: '', clientIp: '' },
  dkim: [],
  dmarc: { result: 'temperror', reason, domain: '', policy: null },
  arc: { result: 'temperror', reason },
  cutShort: reason,
});

export function mailAuthenticator(options: MailAuthOptions = {}): MailAuthenticator {
  return {
    async authenticate(raw, sender, deadline) {
      let timer: NodeJS.Timeout | undefined;
      const left = Math.max(0, deadline - Date.now());
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), left);
        timer.unref();
      });
      try {
        const result = await Promise.race([
          authenticate(raw, { sender: sender || undefined, trustReceived: true, mta: VERIFIER, resolver: boundedResolver(options), disableBimi: true }),
          late,
        ]);
        return result ? reportOf(result) : cutShort(`the verification did not finish within its ${left} ms`);
      } catch (error) {
        return cutShort(`the verifier failed: ${(error as Error).message}`.slice(0, 500));
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
