/**
 * The sender section: what Gmail's and Yahoo's bulk-sender rules (2024) and RFC 8058 ask of a mail's headers, read
 * from the headers the message kept. Pure: no DNS (DKIM signatures are verified in the authentication section; here
 * only their `d=` is compared with From), so it answers for any stored message, whatever else fails.
 */
import { getDomain } from 'tldts';
import type { MailHeader } from '../model';
import { complete, partial, type Finding, type Section } from './model';

/** Gmail clips a message whose HTML passes 102 KB ("[Message clipped] View entire message"). */
export const GMAIL_CLIP_BYTES = 102 * 1024;
/** Past this share of the clipping size the section warns: a template that grows a little will be clipped. */
const CLIP_WARN_SHARE = 0.9;

export interface SenderFacts {
  headers: readonly MailHeader[];
  /** The message's headers were cut when stored (MESSAGE_CAPS): a header past the cut is not seen. */
  headersTruncated: boolean;
  /** The From address (the message's `from`). */
  from: string;
  /** Bytes of the HTML body as decoded (0 for a text-only mail). */
  htmlBytes: number;
}

const values = (headers: readonly MailHeader[], name: string): string[] =>
  headers.filter((h) => h.name.toLowerCase() === name.toLowerCase()).map((h) => h.value.trim());

/** A DKIM-Signature's tags (RFC 6376 §3.2), whitespace removed from values. */
export function dkimTags(value: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const part of value.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    tags[part.slice(0, at).trim().toLowerCase()] = part.slice(at + 1).replace(/\s+/g, '');
  }
  return tags;
}

const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1).toLowerCase().replace(/\.$/, '');
/** The organizational domain (public suffix list), as DMARC's relaxed alignment compares them (RFC 7489 §3.2). */
const organizational = (domain: string): string => getDomain(domain, { allowPrivateDomains: false }) ?? domain;
export const relaxedAligned = (a: string, b: string): boolean => organizational(a.toLowerCase()) === organizational(b.toLowerCase());

function unsubscribe(headers: readonly MailHeader[]): Finding[] {
  const list = values(headers, 'List-Unsubscribe');
  const post = values(headers, 'List-Unsubscribe-Post');
  const uris = list.flatMap((v) => [...v.matchAll(/<([^>]*)>/g)].map((m) => m[1].trim()));
  const https = uris.some((u) => /^https:\/\//i.test(u));
  const findings: Finding[] = [];
  if (list.length === 0) findings.push({ id: 'list-unsubscribe', result: 'warn', detail: 'no List-Unsubscribe header: Gmail and Yahoo require one of bulk senders' });
  else if (!https) findings.push({ id: 'list-unsubscribe', result: 'warn', detail: `List-Unsubscribe has no https URI (${uris.length} URI(s)): one-click unsubscribe (RFC 8058) needs one` });
  else findings.push({ id: 'list-unsubscribe', result: 'pass', detail: `List-Unsubscribe has ${uris.length} URI(s), one of them https` });

  const oneClick = post.length === 1 && post[0] === 'List-Unsubscribe=One-Click';
  if (post.length === 0) {
    findings.push({ id: 'list-unsubscribe-post', result: list.length === 0 ? 'info' : 'fail', detail: 'no List-Unsubscribe-Post: List-Unsubscribe=One-Click header (RFC 8058 one-click unsubscribe)' });
  } else if (!oneClick) {
    findings.push({ id: 'list-unsubscribe-post', result: 'fail', detail: `List-Unsubscribe-Post must be exactly "List-Unsubscribe=One-Click" once (RFC 8058 §3.1), found: ${post.join(' | ').slice(0, 200)}` });
  } else if (!https) {
    findings.push({ id: 'list-unsubscribe-post', result: 'fail', detail: 'List-Unsubscribe-Post without an https URI in List-Unsubscribe (RFC 8058 §3.1)' });
  } else {
    findings.push({ id: 'list-unsubscribe-post', result: 'pass', detail: 'one-click unsubscribe offered (RFC 8058)' });
  }
  if (post.length > 0) {
    // RFC 8058 §4: the DKIM signature must cover both fields, or a forwarder could add them.
    const signed = values(headers, 'DKIM-Signature').some((v) => {
      const signedNames = (dkimTags(v).h ?? '').toLowerCase().split(':');
      return signedNames.includes('list-unsubscribe') && signedNames.includes('list-unsubscribe-post');
    });
    findings.push(
      signed
        ? { id: 'list-unsubscribe-signed', result: 'pass', detail: 'a DKIM signature covers List-Unsubscribe and List-Unsubscribe-Post' }
        : { id: 'list-unsubscribe-signed', result: 'fail', detail: 'no DKIM signature covers both List-Unsubscribe and List-Unsubscribe-Post (RFC 8058 §4)' },
    );
  }
  return findings;
}

function identity(headers: readonly MailHeader[]): Finding[] {
  const ids = values(headers, 'Message-ID');
  const dates = values(headers, 'Date');
  const findings: Finding[] = [];
  if (ids.length === 0) findings.push({ id: 'message-id', result: 'fail', detail: 'no Message-ID header (RFC 5322 §3.6.4 SHOULD; Gmail may reject or mark such mail)' });
  else if (!/^<[^<>@\s]+@[^<>@\s]+>$/.test(ids[0])) findings.push({ id: 'message-id', result: 'warn', detail: `Message-ID is not of the form <left@right>: ${ids[0].slice(0, 200)}` });
  else findings.push({ id: 'message-id', result: 'pass', detail: `Message-ID ${ids[0].slice(0, 200)}` });
  if (dates.length === 0) findings.push({ id: 'date', result: 'fail', detail: 'no Date header (RFC 5322 §3.6 requires one)' });
  else if (Number.isNaN(Date.parse(dates[0].replace(/\s*\([^)]*\)\s*$/, '')))) findings.push({ id: 'date', result: 'fail', detail: `Date is not a date: ${dates[0].slice(0, 200)}` });
  else findings.push({ id: 'date', result: 'pass', detail: `Date ${dates[0].slice(0, 200)}` });
  return findings;
}

function size(htmlBytes: number): Finding {
  const kb = (htmlBytes / 1024).toFixed(1);
  if (htmlBytes > GMAIL_CLIP_BYTES) return { id: 'gmail-clipping', result: 'fail', detail: `the HTML is ${kb} KB: Gmail clips past ${GMAIL_CLIP_BYTES / 1024} KB` };
  if (htmlBytes > GMAIL_CLIP_BYTES * CLIP_WARN_SHARE) return { id: 'gmail-clipping', result: 'warn', detail: `the HTML is ${kb} KB, near Gmail's ${GMAIL_CLIP_BYTES / 1024} KB clipping` };
  return { id: 'gmail-clipping', result: 'pass', detail: `the HTML is ${kb} KB, under Gmail's ${GMAIL_CLIP_BYTES / 1024} KB clipping` };
}

function dkimAlignment(headers: readonly MailHeader[], from: string): Finding {
  const domains = values(headers, 'DKIM-Signature')
    .map((v) => (dkimTags(v).d ?? '').toLowerCase())
    .filter(Boolean);
  const fromDomain = domainOf(from);
  if (domains.length === 0) return { id: 'dkim-aligned', result: 'fail', detail: 'the mail has no DKIM signature: Gmail and Yahoo require one aligned with From' };
  if (!fromDomain) return { id: 'dkim-aligned', result: 'fail', detail: 'the mail has no From domain to align with' };
  const aligned = domains.find((d) => relaxedAligned(d, fromDomain));
  return aligned
    ? { id: 'dkim-aligned', result: 'pass', detail: `DKIM d=${aligned} is aligned with From ${fromDomain} (relaxed)` }
    : { id: 'dkim-aligned', result: 'fail', detail: `no DKIM d= (${[...new Set(domains)].join(', ').slice(0, 300)}) is aligned with From ${fromDomain}` };
}

export function senderSection(facts: SenderFacts): Section {
  const findings = [...unsubscribe(facts.headers), ...identity(facts.headers), size(facts.htmlBytes), dkimAlignment(facts.headers, facts.from)];
  return facts.headersTruncated ? partial(findings, 'the message kept only its first headers (MESSAGE_CAPS.headers): a header past them was not seen') : complete(findings);
}
