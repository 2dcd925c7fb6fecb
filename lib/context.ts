/**
 * The stack's settings, read from CDK context (cdk.json, or `-c tempmail:key=value` on the command line) as strictly
 * as the API reads a request: a typo'd key, a flag that is not true/false, a name that is not a domain or a negative
 * count is refused, not silently ignored or defaulted. Each refusal is one line naming the key, what it was given and
 * what it accepts; the stack reports them as CDK error annotations, so `cdk synth` prints them and exits 1 with no
 * stack trace. docs/DEPLOY.md §2 lists the same keys.
 *
 * Values arrive typed from cdk.json (a JSON list, true) and as strings from `-c` ("a,b", "true"); both are read.
 */
import { isDnsServer } from '../lambdas/core/checks/authentication';
import type { TempMailServiceProps } from './tempmail-service';

export const CONTEXT_PREFIX = 'tempmail:';

/** What each key accepts, as the refusal says it. */
export const CONTEXT_KEYS = {
  domains: 'one to three domain names, the first being the default (a JSON list in cdk.json, a comma list with -c)',
  hostedZoneId: 'a Route 53 hosted zone id (Z followed by letters and digits), given with tempmail:hostedZoneName',
  hostedZoneName: 'the hosted zone’s domain name, which holds every domain, given with tempmail:hostedZoneId',
  activateReceiptRuleSet: 'true or false',
  tableDeletionProtection: 'true or false',
  legacyAccountIndex: 'true or false (true only for the first of the two deploys that upgrade a stack with the by_account index)',
  alarmEmail: 'an e-mail address',
  ingestConcurrency: 'a whole number, 0 or more (0 reserves none)',
  authorizerConcurrency: 'a whole number, 0 or more (0 reserves none)',
  waitConcurrency: 'a whole number, 0 or more (0 reserves none)',
  sesReceivingRegions: 'AWS region names such as us-east-1 (a JSON list in cdk.json, a comma list with -c)',
  corsOrigin: '* or one origin such as https://app.yourco.dev (scheme, host, optional port; no path)',
  checkDns: 'DNS servers the mail checks ask, ip or ip:port (a JSON list in cdk.json, a comma list with -c)',
} as const;

export type ContextKey = keyof typeof CONTEXT_KEYS;

/** The service's settings as context gives them (the construct's other props keep their defaults). */
export type ContextSettings = Pick<
  TempMailServiceProps,
  'domains' | 'hostedZone' | 'activateReceiptRuleSet' | 'tableDeletionProtection' | 'legacyAccountIndex' | 'alarmEmail' | 'concurrency' | 'sesReceivingRegions' | 'corsOrigin' | 'checkDns'
>;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/** A host name of two labels or more, letters, digits and hyphens (IDN as its xn-- form), at most 253 characters. */
export const isDomainName = (name: string): boolean => name.length <= 253 && name.split('.').length >= 2 && name.split('.').every((l) => LABEL.test(l)) && !/^\d+$/.test(name.split('.').pop()!);
const EXAMPLE_DOMAIN = /(^|\.)example\.(com|net|org)$/;
const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/;
const ZONE_ID = /^Z[0-9A-Z]{1,31}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const shown = (value: unknown) => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value));

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/**
 * Reads every `tempmail:*` key of `all` (the app's whole context). Returns the settings, or the refusals (one line
 * each) when any key is unknown or any value is not one its key accepts.
 */
export function readContext(all: Record<string, unknown>): { settings: ContextSettings; errors: [] } | { settings?: undefined; errors: string[] } {
  const errors: string[] = [];
  const refuse = (key: ContextKey, value: unknown, why?: string) =>
    errors.push(`${CONTEXT_PREFIX}${key} is ${shown(value)}${why ? ` (${why})` : ''}: it takes ${CONTEXT_KEYS[key]}`);
  const known = Object.keys(CONTEXT_KEYS) as ContextKey[];

  for (const full of Object.keys(all).filter((k) => k.startsWith(CONTEXT_PREFIX))) {
    const key = full.slice(CONTEXT_PREFIX.length);
    if ((known as string[]).includes(key)) continue;
    const near = known.filter((k) => distance(k.toLowerCase(), key.toLowerCase()) <= 2);
    errors.push(
      `${full} is not a TempMail setting${near.length ? ` (did you mean ${near.map((k) => CONTEXT_PREFIX + k).join(' or ')}?)` : ''}; the settings are ${known.map((k) => CONTEXT_PREFIX + k).join(', ')}`,
    );
  }
  const get = (key: ContextKey) => all[CONTEXT_PREFIX + key];

  const list = (key: ContextKey): string[] | undefined => {
    const value = get(key);
    if (value === undefined) return undefined;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((v) => v.trim().toLowerCase());
    if (typeof value === 'string') return value.split(',').map((v) => v.trim().toLowerCase());
    refuse(key, value);
    return undefined;
  };
  const flag = (key: ContextKey): boolean | undefined => {
    const value = get(key);
    if (value === undefined || value === true || value === false) return value;
    if (value === 'true' || value === 'false') return value === 'true';
    refuse(key, value);
    return undefined;
  };
  const count = (key: ContextKey): number | undefined => {
    const value = get(key);
    if (value === undefined) return undefined;
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (Number.isSafeInteger(n) && n >= 0) return n;
    refuse(key, value);
    return undefined;
  };
  const text = (key: ContextKey, valid: (s: string) => boolean): string | undefined => {
    const value = get(key);
    if (value === undefined) return undefined;
    if (typeof value === 'string' && valid(value.trim())) return value.trim();
    refuse(key, value);
    return undefined;
  };

  const domains = list('domains');
  if (domains === undefined && get('domains') === undefined) errors.push(`${CONTEXT_PREFIX}domains is not set: it takes ${CONTEXT_KEYS.domains}`);
  if (domains) {
    const bad = domains.filter((d) => !isDomainName(d));
    const examples = domains.filter((d) => EXAMPLE_DOMAIN.test(d));
    if (domains.length < 1 || domains.length > 3) refuse('domains', get('domains'), `${domains.length} domains`);
    else if (bad.length) refuse('domains', get('domains'), `not a domain name: ${bad.map((d) => `"${d}"`).join(', ')}`);
    else if (new Set(domains).size !== domains.length) refuse('domains', get('domains'), 'a domain listed twice');
    else if (examples.length)
      errors.push(`${CONTEXT_PREFIX}domains still lists example domains (${examples.join(', ')}): set your own in cdk.json or with -c ${CONTEXT_PREFIX}domains=mail.yourco.dev (docs/DEPLOY.md §2)`);
  }

  const zoneId = text('hostedZoneId', (s) => ZONE_ID.test(s));
  const zoneName = text('hostedZoneName', (s) => isDomainName(s.replace(/\.$/, '').toLowerCase()))?.replace(/\.$/, '').toLowerCase();
  if ((get('hostedZoneId') === undefined) !== (get('hostedZoneName') === undefined)) {
    const [given, missing] = get('hostedZoneId') === undefined ? (['hostedZoneName', 'hostedZoneId'] as const) : (['hostedZoneId', 'hostedZoneName'] as const);
    errors.push(`${CONTEXT_PREFIX}${given} is set without ${CONTEXT_PREFIX}${missing}: give both (the zone's id and its name) or neither`);
  }
  if (zoneName && domains && errors.length === 0) {
    const outside = domains.filter((d) => d !== zoneName && !d.endsWith(`.${zoneName}`));
    if (outside.length) refuse('hostedZoneName', get('hostedZoneName'), `it does not hold ${outside.join(', ')}`);
  }

  const activateReceiptRuleSet = flag('activateReceiptRuleSet');
  const tableDeletionProtection = flag('tableDeletionProtection');
  const legacyAccountIndex = flag('legacyAccountIndex');
  const alarmEmail = text('alarmEmail', (s) => EMAIL.test(s));
  const concurrency = {
    ingest: count('ingestConcurrency'),
    authorizer: count('authorizerConcurrency'),
    longPoll: count('waitConcurrency'),
  };
  const regions = list('sesReceivingRegions');
  if (regions && (regions.length === 0 || !regions.every((r) => REGION.test(r)))) refuse('sesReceivingRegions', get('sesReceivingRegions'));
  const corsOrigin = text('corsOrigin', (s) => s === '*' || /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i.test(s));

  const checkDns = list('checkDns');
  if (checkDns && (checkDns.length === 0 || !checkDns.every(isDnsServer))) refuse('checkDns', get('checkDns'));

  if (errors.length) return { errors };
  return {
    errors: [],
    settings: {
      domains: domains!,
      hostedZone: zoneId && zoneName ? { id: zoneId, name: zoneName } : undefined,
      activateReceiptRuleSet: activateReceiptRuleSet ?? false,
      tableDeletionProtection: tableDeletionProtection ?? true,
      legacyAccountIndex: legacyAccountIndex ?? false,
      alarmEmail,
      concurrency: Object.fromEntries(Object.entries(concurrency).filter(([, v]) => v !== undefined)),
      sesReceivingRegions: regions,
      corsOrigin,
      checkDns,
    },
  };
}
