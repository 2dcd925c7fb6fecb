/**
 * The authentication section: SPF, DKIM, DMARC and ARC as a verifier computed them from the raw mail and its
 * envelope (the MailAuthenticator port; lambdas/checks/mail-auth.ts runs mailauth), and on AWS SES's own verdicts,
 * which the message carries since ingest. Results keep their RFC 8601 names; a DNS failure is `temperror` with the
 * resolver's reason, never an error of the request.
 */
import type { AuthVerdicts } from '../model';
import { complete, partial, type CheckResult, type Finding, type Section } from './model';

export interface AuthOutcome {
  result: CheckResult;
  /** The verifier's comment: why it decided so (for temperror, what DNS said). */
  reason: string;
}

/** What the verifier reports (the port's answer). */
export interface AuthenticationReport {
  spf: AuthOutcome & { domain: string; clientIp: string };
  dkim: (AuthOutcome & { domain: string; selector: string; aligned: boolean })[];
  dmarc: AuthOutcome & { domain: string; policy: string | null };
  arc: AuthOutcome;
  /** Set when the verifier ran out of its time or query budget before every part finished. */
  cutShort?: string;
}

/** A DNS server as node's resolver takes it: `ip` or `ip:port`, IPv6 in brackets when it has a port (TEMPMAIL_CHECK_DNS). */
export const isDnsServer = (server: string): boolean => /^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:]+\](:\d{1,5})?|[0-9a-fA-F:]+)$/.test(server);

const outcome = (id: string, o: AuthOutcome, what: string): Finding => ({ id, result: o.result, detail: `${what}: ${o.reason}`.slice(0, 1000) });

export function authenticationSection(report: AuthenticationReport | null, unavailable: string | null, ses: AuthVerdicts): Section {
  const findings: Finding[] = [];
  if (report) {
    findings.push(outcome('spf', report.spf, `SPF for ${report.spf.domain || 'no domain'} from ${report.spf.clientIp || 'no client address'}`));
    if (report.dkim.length === 0) findings.push({ id: 'dkim', result: 'none', detail: 'the mail has no DKIM signature' });
    for (const sig of report.dkim) findings.push(outcome('dkim', sig, `DKIM d=${sig.domain} s=${sig.selector}${sig.aligned ? ' (aligned with From)' : ''}`));
    findings.push(outcome('dmarc', report.dmarc, `DMARC for ${report.dmarc.domain || 'no From domain'}${report.dmarc.policy ? ` (p=${report.dmarc.policy})` : ''}`));
    findings.push(outcome('arc', report.arc, 'ARC'));
  }
  // SES's verdicts are what AWS decided at receipt (DISABLED where nothing checked: the local form).
  for (const name of ['spf', 'dkim', 'dmarc'] as const) {
    if (ses[name] === 'DISABLED') continue;
    const result: CheckResult = ses[name] === 'PASS' ? 'pass' : ses[name] === 'FAIL' ? 'fail' : ses[name] === 'GRAY' ? 'neutral' : 'temperror';
    findings.push({ id: `ses-${name}`, result, detail: `Amazon SES's ${name.toUpperCase()} verdict at receipt: ${ses[name]}` });
  }
  if (!report) return partial(findings, unavailable ?? 'the raw mail could not be verified');
  return report.cutShort ? partial(findings, report.cutShort) : complete(findings);
}
