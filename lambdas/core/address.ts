/** Address rules (DESIGN §3): usernames, domains and sub-address routing. No I/O. */
export const USERNAME_RULE =
  'username must be 1 to 64 characters of a-z, 0-9, ".", "_" and "-", start and end with a letter or digit, and not contain ".."';

/** The rule as a pattern, in any case (usernames are stored lower-case): the request schema and OpenAPI use it too. */
export const USERNAME_PATTERN = /^(?!.*\.\.)[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$/;

/** Returns the stored (lower-case) form, or null when the username breaks the rule. */
export function normalizeUsername(username: string): string | null {
  return USERNAME_PATTERN.test(username) ? username.toLowerCase() : null;
}

/**
 * Local parts nobody may create, on any domain: certificate authorities send domain-validation mail to admin@,
 * administrator@, webmaster@, hostmaster@ and postmaster@ (CA/Browser Forum Baseline Requirements 3.2.2.4.4), RFC 2142
 * names the role mailboxes of a domain's operators, and mail systems answer from mailer-daemon@ and no-reply@. Whoever
 * held one of these on our domains could receive mail meant for the service's operator. Compared without ".", "_"
 * and "-", so that "post.master" and "no_reply" are the same names.
 */
const RESERVED_LOCAL_PARTS = new Map<string, string>([
  ...['admin', 'administrator', 'webmaster', 'hostmaster', 'postmaster'].map((n) => [n, 'certificate authorities send domain-validation mail to it'] as const),
  ...['abuse', 'noc', 'security', 'usenet', 'news', 'www', 'uucp', 'ftp', 'root', 'sysadmin', 'ssladmin', 'ssladministrator'].map(
    (n) => [n, "it is a mailbox of the domain's operators (RFC 2142)"] as const,
  ),
  ...['mailerdaemon', 'noreply', 'donotreply', 'noresponse'].map((n) => [n, 'mail systems send from it'] as const),
]);

/** Why a (normalized) username may not be created, or null when it may. */
export function reservedUsername(username: string): string | null {
  const reason = RESERVED_LOCAL_PARTS.get(username.replace(/[._-]/g, ''));
  return reason ? `username "${username}" is reserved: ${reason}` : null;
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

/**
 * Inbox groups (a CI run id, a worker id): inboxes created with one are listed and deleted together
 * (GET and DELETE /v1/inboxes?group=). Stored lower-case, like usernames, and short enough that a username derived
 * from it (usernameFor) keeps room for the test's name.
 */
export const GROUP_MAX_LENGTH = 32;
export const GROUP_RULE = `group must be 1 to ${GROUP_MAX_LENGTH} characters of a-z, 0-9, ".", "_" and "-", start and end with a letter or digit, and not contain ".."`;
export const GROUP_PATTERN = /^(?!.*\.\.)[A-Za-z0-9](?:[A-Za-z0-9._-]{0,30}[A-Za-z0-9])?$/;

/** Returns the stored (lower-case) form, or null when the group breaks the rule. */
export function normalizeGroup(group: string): string | null {
  return GROUP_PATTERN.test(group) ? group.toLowerCase() : null;
}

/** The longest test name usernameFor reads (longer names are refused: the schema says so). */
export const TEST_NAME_MAX_LENGTH = 500;
/** FNV-1a, 32 bits, as 8 hex digits: a stable digest with no dependency (not a secret: only tells names apart). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/**
 * The username of a test's inbox, derived from its group and its test name so that its address is the same on
 * every run (POST /v1/inboxes with `group` and `test_name`): `<group>-<slug>-<digest>`, where slug is the test name
 * lower-cased, each run of characters other than a-z and 0-9 made one "-", cut to what leaves the username 64
 * characters (54 less the group's length) and trimmed of "-", and digest 8 hex digits of FNV-1a over the UTF-8 of
 * `<group>\n<test name>` (names whose slugs agree stay apart). With an empty slug it is `<group>-<digest>`. `group`
 * is the normalized (lower-case) group. Always within USERNAME_RULE: at most 64 characters, starting and ending with
 * a letter or digit, no "..".
 */
export function usernameFor(group: string, testName: string): string {
  const slug = testName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 64 - group.length - 1 - 1 - 8)
    .replace(/^-+|-+$/g, '');
  const digest = fnv1a(`${group}\n${testName}`);
  return slug ? `${group}-${slug}-${digest}` : `${group}-${digest}`;
}
