/**
 * The trace header fields SES prepends to each mail it receives, before the raw is stored (the object its S3 action
 * writes, which the ingest reads): `Return-Path` with MAIL FROM (`<>` for a bounce), then a `Received` field naming
 * the client, the receiving host, the mail's id and, when the mail had exactly one recipient, that recipient (`for`).
 * Both local stand-ins prepend the same two (local/smtp.ts, local/aws/mail.ts), so a test that reads a message's
 * headers or its raw download sees in either form what it sees on AWS.
 *
 * What SES does not add, neither do they: there is no `Delivered-To` (the recipient each message was delivered for,
 * with its +tag, is its `envelope.to` in the API). SES's other prepended fields (X-SES-Spam-Verdict,
 * X-SES-Virus-Verdict, Received-SPF, Authentication-Results, X-SES-RECEIPT, X-SES-DKIM-SIGNATURE) report checks that
 * nothing local makes, so they are left out rather than invented.
 */

export interface TraceFacts {
  /** MAIL FROM; empty for a bounce. */
  mailFrom: string;
  /** RCPT TO, as sent. */
  recipients: string[];
  /** The name the client gave in EHLO/HELO. */
  helo: string;
  /** The client's IP address. */
  clientAddress: string;
  /** The receiving host, as SES names itself (inbound-smtp.<region>.amazonaws.com). */
  by: string;
  /** SMTP, ESMTP, ESMTPS, ESMTPSA… (RFC 3848). */
  protocol: string;
  id: string;
  date: Date;
}

/** A value as a header line may carry it: printable, without a line break, bounded. */
const clean = (value: string, max = 320): string => value.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, max);

/** RFC 5322's date-time in UTC, as SES writes it: `Thu, 26 Nov 2026 12:45:13 +0000 (UTC)`. */
export const traceDate = (date: Date): string => date.toUTCString().replace(/GMT$/, '+0000 (UTC)');

/** The header fields to put before the mail's own, CRLF-terminated. */
export function traceHeaders(facts: TraceFacts): Buffer {
  const client = facts.clientAddress.includes(':') ? `[IPv6:${facts.clientAddress}]` : `[${facts.clientAddress}]`;
  const received = [`Received: from ${clean(facts.helo, 255) || 'unknown'} (${clean(client, 100)})`, ` by ${facts.by} with ${facts.protocol} id ${facts.id}`];
  if (facts.recipients.length === 1) received.push(` for ${clean(facts.recipients[0])}`);
  received[received.length - 1] += ';';
  received.push(` ${traceDate(facts.date)}`);
  return Buffer.from([`Return-Path: <${clean(facts.mailFrom)}>`, ...received].join('\r\n') + '\r\n');
}
