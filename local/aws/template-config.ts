/**
 * The template form's settings (`npm run start:aws`), read from the environment here and nowhere else in local/aws/
 * (eslint.config.mjs allows process.env in this module alone): ports, the data folder, the template to run, the
 * domains of a synth for this machine, the seeded keys, the authorizer's cache, the TTL sweep, and the test-only
 * internet stand-in and IAM evidence file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../lambdas/config/app-config';
import { parseDomains } from '../../lambdas/core/address';
import type { PlanName } from '../../lambdas/core/plans';
import { noDevKey, parseSeedKeys } from '../config';
import type { InternetStandIn } from './functions';
import { DEFAULT_TEMPLATE_DATA_DIR } from './template';

/** The domains a synth for this machine uses when neither TEMPMAIL_DOMAINS nor cdk.json names real ones. */
const LOCAL_DOMAINS = 'tempmail.local,inbox.test,mailbox.test';

export interface TemplateRunConfig {
  host: string;
  port: number;
  smtpPort: number;
  dataDir: string;
  templateFile?: string;
  /** Given to a synth as tempmail:domains context. */
  synthDomains?: string[];
  /** TEMPMAIL_CHECK_DNS, given to a synth as tempmail:checkDns: the checks function's DNS, as a deployer sets it. */
  synthCheckDns?: string;
  dynamoPort?: number;
  s3Port?: number;
  seedKeys: { plan: PlanName; key: string }[];
  printDevKey: boolean;
  /** Replaces the authorizer's result TTL from the template (tests see a revocation at once with 0). */
  authorizerCacheSeconds?: number;
  /** How often expired items are deleted as DynamoDB's TTL would (TEMPMAIL_TTL_INTERVAL_MS). */
  ttlIntervalMs: number;
  /** Test only: named internet hosts served on loopback (TEMPMAIL_TEMPLATE_INTERNET, local/aws/internet.js). */
  internet?: InternetStandIn;
  /**
   * TEMPMAIL_IAM_EVIDENCE: where the IAM gate's evidence (each function's policies and the calls it was allowed) is
   * written when the stack stops, for the unused-grant report (scripts/iam-unused-grants.ts).
   */
  iamEvidenceFile?: string;
}

/**
 * TEMPMAIL_TEMPLATE_INTERNET=`name=127.0.0.1:port,…` (and TEMPMAIL_TEMPLATE_INTERNET_CA=<PEM file>): the functions'
 * stand-in for the internet. Each name resolves to a public address for them and is served by its loopback port;
 * no other address off this machine is reachable. A test setting: the deployed webhook sender's rules stay as they
 * are and see a public host.
 */
export function parseInternetStandIn(value: string | undefined, caFile: string | undefined): InternetStandIn | undefined {
  if (!value) {
    if (caFile) throw new ConfigError('TEMPMAIL_TEMPLATE_INTERNET_CA: given without TEMPMAIL_TEMPLATE_INTERNET');
    return undefined;
  }
  const hosts: InternetStandIn['hosts'] = {};
  for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+)=(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/i.exec(part);
    const port = m ? Number(m[6]) : 0;
    if (!m || port < 1 || port > 65535) throw new ConfigError(`TEMPMAIL_TEMPLATE_INTERNET: "${part}" is not name=127.0.0.1:port (a dotted host name, a loopback address and a port 1-65535)`);
    hosts[m[1].toLowerCase()] = { host: m[5], port };
  }
  if (Object.keys(hosts).length === 0) throw new ConfigError('TEMPMAIL_TEMPLATE_INTERNET: names no host (name=127.0.0.1:port,…)');
  if (caFile && !fs.existsSync(caFile)) throw new ConfigError(`TEMPMAIL_TEMPLATE_INTERNET_CA: no such file: ${caFile}`);
  return { hosts, caFile: caFile ? path.resolve(caFile) : undefined };
}

const ROOT = path.resolve(__dirname, '..', '..');

function examplesOnly(): boolean {
  try {
    const cdkJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
    const domains = cdkJson.context?.['tempmail:domains'];
    const list = Array.isArray(domains) ? domains.map(String) : [];
    return list.length === 0 || list.every((d) => /(^|\.)example\.(com|net|org)$/i.test(d));
  } catch {
    return true;
  }
}

export function templateConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TemplateRunConfig {
  const port = (name: string, fallback?: number): number | undefined => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name}: not a port number: ${value}`);
    return n;
  };
  const host = env.TEMPMAIL_HOST || '127.0.0.1';
  const cache = env.TEMPMAIL_AUTHORIZER_CACHE_SECONDS;
  if (cache !== undefined && cache !== '' && !(Number(cache) >= 0)) throw new ConfigError(`TEMPMAIL_AUTHORIZER_CACHE_SECONDS: not a number: ${cache}`);
  let synthDomains: string[] | undefined;
  try {
    synthDomains = env.TEMPMAIL_DOMAINS ? parseDomains(env.TEMPMAIL_DOMAINS) : examplesOnly() ? parseDomains(LOCAL_DOMAINS) : undefined;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return {
    host,
    port: port('PORT', 3000)!,
    smtpPort: port('SMTP_PORT', 2525)!,
    dataDir: path.resolve(env.TEMPMAIL_DATA_DIR || DEFAULT_TEMPLATE_DATA_DIR),
    templateFile: env.TEMPMAIL_TEMPLATE || undefined,
    synthDomains,
    synthCheckDns: env.TEMPMAIL_CHECK_DNS || undefined,
    dynamoPort: port('TEMPMAIL_DYNAMODB_PORT'),
    s3Port: port('TEMPMAIL_S3_PORT'),
    seedKeys: parseSeedKeys(env.TEMPMAIL_SEED_KEYS),
    printDevKey: !noDevKey(env),
    authorizerCacheSeconds: cache === undefined || cache === '' ? undefined : Number(cache),
    internet: parseInternetStandIn(env.TEMPMAIL_TEMPLATE_INTERNET, env.TEMPMAIL_TEMPLATE_INTERNET_CA),
    iamEvidenceFile: env.TEMPMAIL_IAM_EVIDENCE ? path.resolve(env.TEMPMAIL_IAM_EVIDENCE) : undefined,
    ttlIntervalMs: (() => {
      const value = Number(env.TEMPMAIL_TTL_INTERVAL_MS || 60_000);
      if (!(value > 0)) throw new ConfigError(`TEMPMAIL_TTL_INTERVAL_MS: not a positive number: ${env.TEMPMAIL_TTL_INTERVAL_MS}`);
      return value;
    })(),
  };
}
