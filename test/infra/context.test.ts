/**
 * CDK context as a user gives it: `npx cdk synth -c tempmail:…` from the repository, in a process of its own. Each
 * refused setting is one line naming the key and what it accepts, synth exits 1 before bundling anything, and no
 * stack trace is printed. One to three domains synthesize (the app through its real entry, bin/app.ts, as the CDK
 * CLI runs it, with bundling skipped: only the template is read).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STACK_NAME } from '../../lib/app';
import { CONTEXT_KEYS } from '../../lib/context';
import type { Json } from '../support/json';

const ROOT = path.resolve(__dirname, '..', '..');
const run = (command: string, args: string[], env: Record<string, string> = {}) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 300_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
      resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
const outdir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-context-'));
const cdkSynth = (...context: string[]) => run(path.join(ROOT, 'node_modules', '.bin', 'cdk'), ['synth', '-q', '-o', outdir(), ...context.flatMap((c) => ['-c', c])]);

/** Each message on a line of its own, and nothing that looks like a stack trace. */
function expectRefusals(output: string, messages: string[]) {
  const lines = output.split('\n');
  for (const message of messages) expect(lines.filter((l) => l.includes(message))).toHaveLength(1);
  expect(lines.filter((l) => /^\s+at /.test(l))).toEqual([]);
  expect(output).not.toMatch(/Error: .*\n\s+at /);
}

it('refuses a typo, a flag that is not true/false, a negative count, a zone id without its name, the example domains', async () => {
  // cdk.json's example domains apply: none are given here.
  const synth = await cdkSynth('tempmail:domain=mail.yourco.dev', 'tempmail:activateReceiptRuleSet=yes', 'tempmail:ingestConcurrency=-1', 'tempmail:hostedZoneId=Z0123456789ABCDEFGHIJ');
  expect(synth.status).toBe(1);
  expectRefusals(synth.stdout + synth.stderr, [
    'tempmail:domain is not a TempMail setting (did you mean tempmail:domains?); the settings are tempmail:domains, tempmail:hostedZoneId,',
    'tempmail:activateReceiptRuleSet is "yes": it takes true or false',
    'tempmail:ingestConcurrency is "-1": it takes a whole number, 0 or more (0 reserves none)',
    "tempmail:hostedZoneId is set without tempmail:hostedZoneName: give both (the zone's id and its name) or neither",
    'tempmail:domains still lists example domains (mail.example.com, inbox.example.com, box.example.com): set your own in cdk.json or with -c tempmail:domains=',
  ]);
  expect(synth.stdout + synth.stderr).not.toContain('Bundling asset');
}, 600_000);

it('refuses a name that is not a domain, and four domains', async () => {
  const notDomain = await cdkSynth('tempmail:domains=not_a_domain,mail.yourco.dev');
  expect(notDomain.status).toBe(1);
  expectRefusals(notDomain.stdout + notDomain.stderr, [`tempmail:domains is "not_a_domain,mail.yourco.dev" (not a domain name: "not_a_domain"): it takes ${CONTEXT_KEYS.domains}`]);
  const four = await cdkSynth('tempmail:domains=a.yourco.dev,b.yourco.dev,c.yourco.dev,d.yourco.dev');
  expect(four.status).toBe(1);
  expectRefusals(four.stdout + four.stderr, [`tempmail:domains is "a.yourco.dev,b.yourco.dev,c.yourco.dev,d.yourco.dev" (4 domains): it takes ${CONTEXT_KEYS.domains}`]);
}, 600_000);

it('synthesizes with one domain (the local form runs with one too), and tempmail:checkDns reaches the checks function alone', async () => {
  const out = outdir();
  const app = await run(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['bin/app.ts'], {
    CDK_OUTDIR: out,
    CDK_CONTEXT_JSON: JSON.stringify({ 'tempmail:domains': 'mail.yourco.dev', 'tempmail:activateReceiptRuleSet': 'false', 'tempmail:checkDns': '10.0.0.2, [2001:db8::53]:5353', 'aws:cdk:bundling-stacks': [] }),
  });
  expect(app).toMatchObject({ status: 0, stderr: '' });
  const template = JSON.parse(fs.readFileSync(path.join(out, `${STACK_NAME}.template.json`), 'utf8')) as { Resources: Record<string, { Type: string; Properties: Record<string, Json> }> };
  const identities = Object.values(template.Resources).filter((r) => r.Type === 'AWS::SES::EmailIdentity').map((r) => r.Properties.EmailIdentity);
  expect(identities).toEqual(['mail.yourco.dev']);
  const domainsSeen = new Set(Object.values(template.Resources).flatMap((r) => (r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.TEMPMAIL_DOMAINS ? [r.Properties.Environment.Variables.TEMPMAIL_DOMAINS] : [])));
  expect([...domainsSeen]).toEqual(['mail.yourco.dev']);
  const withDns = Object.entries(template.Resources).flatMap(([id, r]) =>
    r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.TEMPMAIL_CHECK_DNS ? [[id.replace(/[0-9A-F]{8}$/, ''), r.Properties.Environment.Variables.TEMPMAIL_CHECK_DNS]] : [],
  );
  expect(withDns).toEqual([['TempMailApiGetMessageChecksFunction', '10.0.0.2,[2001:db8::53]:5353']]);
}, 600_000);
