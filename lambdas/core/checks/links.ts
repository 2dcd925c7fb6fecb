/**
 * The links section: each link and image source of the mail, asked for by a request (HEAD, then GET where HEAD is
 * refused) and followed through its redirects, with the status it ends at and the time it took. Only when the caller
 * asks (`?links=true`): a check then makes requests to third-party URLs. The requests go through the LinkProber port
 * (lambdas/checks/link-probe.ts), under the webhook sender's address rule; this module turns its answers into
 * findings, one per URL.
 */
import { complete, partial, skipped, type Finding, type Section } from './model';

/** URLs asked at most per check; past it the section is partial. */
export const MAX_CHECKED_LINKS = 50;

export interface LinkTarget {
  url: string;
  kind: 'link' | 'image';
}

export interface LinkOutcome extends LinkTarget {
  /** The status the chain ended at (absent: no answer). */
  status?: number;
  /** Where the chain ended, when a redirect was followed. */
  finalUrl?: string;
  redirects: number;
  ms: number;
  /** No answer: a timeout, a refused connection, a DNS failure, too many redirects. */
  error?: string;
  /** Not asked at all: the address rule refused it (a private address on AWS) or it is not http(s). */
  refused?: string;
}

export interface LinkReport {
  outcomes: LinkOutcome[];
  /** Why some URLs were not asked (the time budget). */
  cutShort: string | null;
}

export const LINKS_NOT_ASKED = 'links are checked only when asked (?links=true): a check then makes requests to the URLs in the mail';

/** The http(s) URLs to ask, links first, each once, and how many there were in all. */
export function linkTargets(links: readonly string[], images: readonly string[]): { targets: LinkTarget[]; total: number } {
  const seen = new Set<string>();
  const sources = new Set(images);
  const all: LinkTarget[] = [];
  // An image's source is an image wherever it was found (a text made from the HTML lists it among the links).
  for (const url of [...links, ...images]) {
    if (!/^https?:\/\//i.test(url) || seen.has(url)) continue;
    seen.add(url);
    all.push({ url, kind: sources.has(url) ? 'image' : 'link' });
  }
  return { targets: all.slice(0, MAX_CHECKED_LINKS), total: all.length };
}

function finding(o: LinkOutcome): Finding {
  const took = `in ${o.ms} ms`;
  if (o.refused) return { id: o.kind, result: 'warn', detail: `${o.url}: not requested: ${o.refused}` };
  if (o.status === undefined) return { id: o.kind, result: 'fail', detail: `${o.url}: ${o.error ?? 'no answer'} ${took}` };
  const via = o.redirects ? ` after ${o.redirects} redirect${o.redirects > 1 ? 's' : ''}, ending at ${o.finalUrl}` : '';
  const result = o.status >= 200 && o.status < 300 ? 'pass' : o.status >= 300 && o.status < 400 ? 'warn' : 'fail';
  return { id: o.kind, result, detail: `${o.url}: ${o.status}${via} ${took}`.slice(0, 1000) };
}

/** `report` null: not asked. `total`: the URLs the mail has, of which `report` answers for the first ones. */
export function linksSection(report: LinkReport | null, total: number): Section {
  if (!report) return skipped(LINKS_NOT_ASKED);
  const findings = report.outcomes.map(finding);
  const reasons = [
    total > MAX_CHECKED_LINKS ? `the mail has ${total} links and image sources: the first ${MAX_CHECKED_LINKS} were checked` : '',
    report.cutShort ?? '',
  ].filter(Boolean);
  if (total === 0) return complete([{ id: 'link', result: 'none', detail: 'the mail has no http(s) links or image sources' }]);
  return reasons.length ? partial(findings, reasons.join('; ')) : complete(findings);
}
