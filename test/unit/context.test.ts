/**
 * The stack's context (lib/context.ts), read as strictly as the API reads a request: every refusal is one line naming
 * the key, what it was given and what it accepts. test/infra/context.test.ts runs `cdk synth` with such settings.
 */
import { CONTEXT_KEYS, readContext } from '../../lib/context';

const ok = { 'tempmail:domains': ['mail.yourco.dev'] };
const refusals = (context: Record<string, unknown>) => readContext(context).errors;

test('reads one to three domains, lower-cased, from a JSON list or a comma list', () => {
  expect(readContext(ok).settings?.domains).toEqual(['mail.yourco.dev']);
  expect(readContext({ 'tempmail:domains': 'Mail.YourCo.dev, inbox.yourco.dev,box.yourco.dev' }).settings?.domains).toEqual(['mail.yourco.dev', 'inbox.yourco.dev', 'box.yourco.dev']);
  expect(refusals({ 'tempmail:domains': ['a.yourco.dev', 'b.yourco.dev', 'c.yourco.dev', 'd.yourco.dev'] })).toEqual([
    `tempmail:domains is ["a.yourco.dev","b.yourco.dev","c.yourco.dev","d.yourco.dev"] (4 domains): it takes ${CONTEXT_KEYS.domains}`,
  ]);
  expect(refusals({ 'tempmail:domains': [] })).toEqual([`tempmail:domains is [] (0 domains): it takes ${CONTEXT_KEYS.domains}`]);
  expect(refusals({})).toEqual([`tempmail:domains is not set: it takes ${CONTEXT_KEYS.domains}`]);
});

test.each([['not_a_domain'], ['localhost'], ['-x.yourco.dev'], ['a..b'], ['mail.yourco.dev/'], ['10.0.0.1'], [`${'a'.repeat(64)}.dev`], ['mail.yourco.dev,']])('refuses %s as a domain', (domain) => {
  expect(refusals({ 'tempmail:domains': domain })).toEqual([expect.stringMatching(/^tempmail:domains is ".*" \(not a domain name: .*\): it takes one to three domain names/)]);
});

test('refuses the example domains cdk.json ships with, and a domain listed twice', () => {
  expect(refusals({ 'tempmail:domains': ['mail.example.com'] })).toEqual([expect.stringMatching(/^tempmail:domains still lists example domains \(mail\.example\.com\): set your own/)]);
  expect(refusals({ 'tempmail:domains': 'a.yourco.dev,a.yourco.dev' })).toEqual([expect.stringContaining('(a domain listed twice)')]);
});

test('flags are true or false, as JSON or as -c strings; anything else is refused, not read as false', () => {
  expect(readContext({ ...ok, 'tempmail:activateReceiptRuleSet': 'true', 'tempmail:tableDeletionProtection': false }).settings).toMatchObject({ activateReceiptRuleSet: true, tableDeletionProtection: false });
  expect(readContext(ok).settings).toMatchObject({ activateReceiptRuleSet: false, tableDeletionProtection: true });
  expect(refusals({ ...ok, 'tempmail:activateReceiptRuleSet': 'yes', 'tempmail:tableDeletionProtection': 1 })).toEqual([
    'tempmail:activateReceiptRuleSet is "yes": it takes true or false',
    'tempmail:tableDeletionProtection is 1: it takes true or false',
  ]);
});

test('concurrencies are whole numbers, 0 or more', () => {
  expect(readContext({ ...ok, 'tempmail:ingestConcurrency': '0', 'tempmail:waitConcurrency': 50 }).settings?.concurrency).toEqual({ ingest: 0, longPoll: 50 });
  expect(refusals({ ...ok, 'tempmail:ingestConcurrency': '-1', 'tempmail:authorizerConcurrency': 2.5, 'tempmail:waitConcurrency': 'ten' })).toEqual([
    'tempmail:ingestConcurrency is "-1": it takes a whole number, 0 or more (0 reserves none)',
    'tempmail:authorizerConcurrency is 2.5: it takes a whole number, 0 or more (0 reserves none)',
    'tempmail:waitConcurrency is "ten": it takes a whole number, 0 or more (0 reserves none)',
  ]);
});

test('a hosted zone is its id and its name, and holds every domain', () => {
  const zone = { 'tempmail:hostedZoneId': 'Z0123456789ABCDEFGHIJ', 'tempmail:hostedZoneName': 'YourCo.dev.' };
  expect(readContext({ ...ok, ...zone }).settings?.hostedZone).toEqual({ id: 'Z0123456789ABCDEFGHIJ', name: 'yourco.dev' });
  expect(refusals({ ...ok, 'tempmail:hostedZoneId': 'Z0123456789ABCDEFGHIJ' })).toEqual([
    "tempmail:hostedZoneId is set without tempmail:hostedZoneName: give both (the zone's id and its name) or neither",
  ]);
  expect(refusals({ ...ok, 'tempmail:hostedZoneName': 'yourco.dev' })).toEqual([
    "tempmail:hostedZoneName is set without tempmail:hostedZoneId: give both (the zone's id and its name) or neither",
  ]);
  expect(refusals({ ...ok, ...zone, 'tempmail:hostedZoneId': 'not-a-zone' })).toEqual([expect.stringMatching(/^tempmail:hostedZoneId is "not-a-zone": it takes a Route 53 hosted zone id/)]);
  expect(refusals({ 'tempmail:domains': 'mail.yourco.dev,mail.other.dev', ...zone })).toEqual([
    expect.stringMatching(/^tempmail:hostedZoneName is "YourCo.dev." \(it does not hold mail\.other\.dev\): it takes the hosted zone/),
  ]);
});

test('the other settings: an address, regions, an origin', () => {
  expect(readContext({ ...ok, 'tempmail:alarmEmail': 'ops@yourco.dev', 'tempmail:sesReceivingRegions': 'eu-west-1,us-east-1', 'tempmail:corsOrigin': 'https://app.yourco.dev:8443' }).settings).toMatchObject({
    alarmEmail: 'ops@yourco.dev',
    sesReceivingRegions: ['eu-west-1', 'us-east-1'],
    corsOrigin: 'https://app.yourco.dev:8443',
  });
  expect(refusals({ ...ok, 'tempmail:alarmEmail': 'ops', 'tempmail:sesReceivingRegions': 'mars', 'tempmail:corsOrigin': 'https://app.yourco.dev/path' }).map((e) => e.split(' is ')[0])).toEqual([
    'tempmail:alarmEmail',
    'tempmail:sesReceivingRegions',
    'tempmail:corsOrigin',
  ]);
});

test('tempmail:checkDns: DNS servers for the checks function, as a list or a comma list; anything else refused', () => {
  expect(readContext({ ...ok, 'tempmail:checkDns': '10.0.0.2, 10.0.0.3:5353' }).settings?.checkDns).toEqual(['10.0.0.2', '10.0.0.3:5353']);
  expect(readContext({ ...ok, 'tempmail:checkDns': ['[2001:db8::53]:53'] }).settings?.checkDns).toEqual(['[2001:db8::53]:53']);
  expect(readContext(ok).settings?.checkDns).toBeUndefined();
  expect(refusals({ ...ok, 'tempmail:checkDns': 'dns.google' })).toEqual([`tempmail:checkDns is "dns.google": it takes ${CONTEXT_KEYS.checkDns}`]);
});

test('an unknown tempmail: key is refused with the nearest setting; other context is not ours to judge', () => {
  expect(refusals({ 'tempmail:domain': 'mail.yourco.dev', 'aws:cdk:bundling-stacks': [], '@aws-cdk/core:newStyleStackSynthesis': true })).toEqual([
    expect.stringMatching(/^tempmail:domain is not a TempMail setting \(did you mean tempmail:domains\?\); the settings are tempmail:domains, /),
    `tempmail:domains is not set: it takes ${CONTEXT_KEYS.domains}`,
  ]);
  expect(refusals({ ...ok, 'tempmail:colour': 'blue' })).toEqual([expect.stringMatching(/^tempmail:colour is not a TempMail setting; the settings are /)]);
});

test('every refusal is one line', () => {
  const all = refusals({ 'tempmail:domain': 'x', 'tempmail:domains': 'bad_domain', 'tempmail:activateReceiptRuleSet': 'yes', 'tempmail:ingestConcurrency': '-1', 'tempmail:hostedZoneId': 'Z1' });
  expect(all).toHaveLength(5);
  for (const line of all) expect(line).not.toContain('\n');
});
