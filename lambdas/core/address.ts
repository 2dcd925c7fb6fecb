/** Address rules (DESIGN §3): usernames, domains and sub-address routing. No I/O. */
export const USERNAME_RULE =
  'username must be 1 to 64 characters of a-z, 0-9, ".", "_" and "-", start and end with a letter or digit, and not contain ".."';

/** The rule as a pattern, in any case (usernames are stored lower-case): the request schema and OpenAPI use it too. */
export const USERNAME_PATTERN = /^(?!.*\.\.)[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$/;

/** Returns the stored (lower-case) form, or null when the username breaks the rule. */
export function normalizeUsername(username: string): string | null {
  return USERNAME_PATTERN.test(username) ? username.toLowerCase() : null;
}

/** The configured domains, lower-case, the first being the default. */
export function parseDomains(value: string | undefined): string[] {
  const domains = (value ?? 'tempmail.local,inbox.test,mailbox.test')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  if (domains.length === 0) throw new Error('TEMPMAIL_DOMAINS names no domain');
  return domains;
}

export function matchDomain(domain: string, domains: readonly string[]): string | null {
  const lower = domain.trim().toLowerCase();
  return domains.includes(lower) ? lower : null;
}

/**
 * The inbox address a recipient is delivered to: lower-cased, with a `+tag` sub-address removed.
 * Null when the domain is not ours or the local part could not be an inbox.
 */
export function inboxAddressFor(recipient: string, domains: readonly string[]): string | null {
  const at = recipient.lastIndexOf('@');
  if (at <= 0) return null;
  const domain = matchDomain(recipient.slice(at + 1), domains);
  if (!domain) return null;
  const local = recipient.slice(0, at).split('+')[0];
  const username = normalizeUsername(local);
  return username ? `${username}@${domain}` : null;
}

export function isOurDomain(recipient: string, domains: readonly string[]): boolean {
  const at = recipient.lastIndexOf('@');
  return at > 0 && matchDomain(recipient.slice(at + 1), domains) !== null;
}
