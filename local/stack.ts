/**
 * The local stack: the gateway, the SMTP stand-in and the sweep, wired to the same Lambda handlers and use cases the
 * AWS stack deploys, on one of two stores:
 * - embedded (the default): SQLite in the data folder, inside this process; nothing listens but the API and SMTP;
 * - dynamodb: AWS's DynamoDB Local and the S3 server as child processes on loopback, to prove the AWS adapters.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { StoreKind } from '../lambdas/config/app-config';
import { ConfigError } from '../lambdas/config/app-config';
import { appContext } from '../lambdas/app/context';
import { installContext } from '../lambdas/app/current';
import type { IngestContext } from '../lambdas/usecases/context';
import { hashApiKey } from '../lambdas/core/ids';
import { ensureKey, findKey, issueKey } from '../lambdas/usecases/keys';
import { devKeyFile, inboundSpoolDir, serviceConfig, smtpSpoolDir, viewerBuildDir, viewerIsPrebuilt, writeDevKeyFile, type LocalConfig } from './config';
import { FreeSpace } from './free-space';
import { LocalGateway } from './gateway';
import { startSweeper } from './sweep';
import { LocalMailServer } from './smtp';
import { InboundSpool } from './inbound-spool';
import { settleInbound, spoolSegmentStored } from '../lambdas/usecases/inbound';
import { smtpTlsPair } from './smtp-tls';
import { LocalWebhookDispatcher } from './webhook-dispatcher';

export interface LocalStack {
  apiUrl: string;
  smtpPort: number;
  /** The stand-ins' endpoints (dynamodb form only). */
  dynamoEndpoint?: string;
  s3Endpoint?: string;
  /** The local account's key, kept in `<data folder>/dev-key` (absent with TEMPMAIL_NO_DEV_KEY=1). */
  devKey?: string;
  /** True when the dev key was made at this start (a fresh data folder, or its dev key file gone or revoked). */
  devKeyMade: boolean;
  ctx: IngestContext;
  stop(): Promise<void>;
}

export const stateFile = (dataDir: string) => path.join(dataDir, 'stack.json');

/**
 * What a running stack writes to its state file once up (the keys CLI and a second start read it). `dynamoEndpoint`:
 * the name the dynamodb form's endpoint had in files of older versions.
 */
export interface StackState {
  pid: number;
  store: StoreKind;
  apiUrl: string;
  smtpPort: number;
  dynamodb?: string;
  s3?: string;
  dynamoEndpoint?: string;
}
const kindFile = (dataDir: string) => path.join(dataDir, 'store-kind');

/**
 * The store kind a data folder holds: written at its first start, so that a folder of one kind is never opened as
 * the other (an empty table would look like lost data). Folders of older versions, with no marker, held DynamoDB
 * Local's files.
 */
export function dataFolderKind(dataDir: string): StoreKind | null {
  try {
    return fs.readFileSync(kindFile(dataDir), 'utf8').trim() as StoreKind;
  } catch {
    return fs.existsSync(path.join(dataDir, 'dynamodb')) ? 'dynamodb' : null;
  }
}

export function claimDataFolder(dataDir: string, kind: StoreKind): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const found = dataFolderKind(dataDir);
  if (found && found !== kind) {
    throw new ConfigError(
      `the data folder ${dataDir} holds a ${found} store, not ${kind}: start with TEMPMAIL_STORE=${found}, or choose another TEMPMAIL_DATA_DIR`,
    );
  }
  if (!found) fs.writeFileSync(kindFile(dataDir), `${kind}\n`);
}

/** The stack serving a data folder now, from the state file it writes once up (a stack killed left one behind: its process is gone). */
export function runningStackOf(dataDir: string): StackState | null {
  let state: StackState;
  try {
    state = JSON.parse(fs.readFileSync(stateFile(dataDir), 'utf8')) as StackState;
  } catch {
    return null;
  }
  if (!Number.isInteger(state.pid) || state.pid === process.pid) return null;
  try {
    process.kill(state.pid, 0);
  } catch (error) {
    // EPERM: alive, another user's
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  // The number of a process gone may be another's by now: where /proc says which program it runs, it must be node.
  try {
    if (!fs.readFileSync(`/proc/${state.pid}/cmdline`, 'utf8').includes('node')) return null;
  } catch {
    // no /proc (macOS), or not ours to read: the process is alive, take it for the stack
  }
  return state;
}

/**
 * The local account: the dev key in `<data folder>/dev-key`, made (a dev-plan key of a new account) when the file
 * is absent or names a key the store no longer accepts (revoked, or a store started afresh). One account by default:
 * the key `npm start` prints, the one scripts read from the file and the one the viewer is given are the same, and
 * catch-all mail (TEMPMAIL_CATCH_ALL) lands in its inboxes. Keys made with `tempmail keys create` are accounts of
 * their own. The file is written whole, mode 0600: it is its user's credential, as the store keeps only hashes.
 */
async function ensureDevKey(ctx: IngestContext, dataDir: string): Promise<{ key: string; accountId: string; made: boolean }> {
  const file = devKeyFile(dataDir);
  let kept: string | undefined;
  try {
    kept = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (kept) {
    const record = await findKey(ctx, kept);
    if (record && !record.revoked_at) return { key: kept, accountId: record.account_id, made: false };
  }
  const issued = await issueKey(ctx, 'dev');
  writeDevKeyFile(dataDir, issued.key);
  return { key: issued.key, accountId: issued.record.account_id, made: true };
}

/** A port that is taken is a start-up error that says so, never a stack that talks to another one's data. */
async function listenOrExplain<T>(what: string, port: number, setting: string, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError(`${what} port ${port} is already in use (another TempMail stack?); choose another with ${setting}=…`);
    }
    throw error;
  }
}

export async function startLocalStack(config: LocalConfig, log: (line: string) => void = console.log): Promise<LocalStack> {
  claimDataFolder(config.dataDir, config.store);
  // Two stacks on one folder would each take the other's accepted mail from the inbound queue, and each sweep.
  const running = runningStackOf(config.dataDir);
  if (running) {
    throw new ConfigError(
      `the data folder ${config.dataDir} is in use by the stack running as process ${running.pid}${running.apiUrl ? ` (API ${running.apiUrl})` : ''}: stop it, or give this stack its own TEMPMAIL_DATA_DIR`,
    );
  }
  const stops: (() => Promise<void> | void)[] = [];
  // First: on a full disk the reserve is given up before anything writes, so that the start and deletes can run.
  let stores: IngestContext['stores'] | undefined;
  const space = new FreeSpace(config.dataDir, config.minFreeBytes, () => stores?.reclaimableBytes?.() ?? 0, log);
  stops.push(space.start());
  const stopAll = async () => {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch((error) => log(`[local] stopping: ${(error as Error).message}`));
  };
  try {
    let endpoints: { dynamodb: string; s3: string } | undefined;
    if (config.store === 'dynamodb') {
      // Required here, not imported: the embedded form never loads the AWS SDK clients (0.3 s and 20 MB at start).
      const { startStandIns } = require('./stand-ins') as typeof import('./stand-ins');
      const standIns = await startStandIns(config, log);
      stops.push(...standIns.stops);
      endpoints = standIns.endpoints;
    }

    // The web viewer, served at / by the gateway: built from viewer/src now, so that it always matches the sources
    // (required here: the npm package serves the viewer it ships built, and carries neither esbuild nor the sources).
    if (!viewerIsPrebuilt()) {
      (require('../viewer/build') as typeof import('../viewer/build')).buildViewer(viewerBuildDir(config.dataDir));
    }
    const ctx = appContext(serviceConfig(config, endpoints));
    stores = ctx.stores;
    stops.push(() => ctx.stores.close());
    // Before anything writes: object files a crash left with no row naming them.
    const orphans = ctx.stores.sweepOrphanFiles?.() ?? 0;
    if (orphans > 0) log(`[store] removed ${orphans} object file(s) left by an interrupted write`);
    // The handlers the gateway loads (sources or bundles) run on this context, not one of their own.
    installContext(ctx);
    stops.push(() => installContext(undefined));
    // The embedded store's caches ask SQLite whether another connection has committed once per input, not before every
    // answer (lambdas/store/sqlite-engine.ts): each request, RCPT, end of DATA and sweep is marked as it arrives.
    const inputArrived = ctx.stores.askOncePerInput?.() ?? (() => undefined);

    // Before the servers: ingest reports stored mail to it from the first message on; it stops after them.
    const dispatcher = new LocalWebhookDispatcher(ctx, { concurrency: config.webhooks.concurrency, log });
    dispatcher.start();
    stops.push(() => dispatcher.stop());

    for (const seed of config.seedKeys) await ensureKey(ctx, seed.plan, seed.key);
    const dev = config.printDevKey ? await ensureDevKey(ctx, config.dataDir) : undefined;

    const gateway = new LocalGateway({
      host: config.host,
      port: config.port,
      ctx,
      bundleDir: config.bundleDir,
      authorizerCacheSeconds: config.authorizerCacheSeconds,
      rateLimits: config.rateLimits !== 'none',
      // The local account is never throttled unless asked (TEMPMAIL_RATE_LIMITS=on); keys of a plan keep their limits.
      unthrottledKeyHashes: new Set(dev && config.rateLimits === 'plan-keys' ? [hashApiKey(dev.key)] : []),
      space,
      inputArrived,
    });
    const apiUrl = await listenOrExplain('API', config.port, 'PORT', () => gateway.listen());
    stops.push(() => gateway.close());

    const mail = new LocalMailServer({
      host: config.host,
      port: config.smtpPort,
      ctx,
      socketTimeoutMs: config.smtpSocketTimeoutMs,
      ingestConcurrency: config.ingestConcurrency,
      spoolDir: smtpSpoolDir(config.dataDir),
      // The embedded form's queue before the 250; the dynamodb form keeps SES's, an object in the S3 server.
      inboundSpool: config.store === 'embedded' ? new InboundSpool(inboundSpoolDir(config.dataDir), () => settleInbound(ctx), (segment) => spoolSegmentStored(ctx, segment), log) : undefined,
      logEachMail: config.logEachMail,
      tarpitStepMs: config.smtpTarpitStepMs,
      tls: await smtpTlsPair(config.dataDir, config.smtpTlsFiles),
      auth: config.smtpAuth,
      catchAllFor: config.catchAll && dev ? { account_id: dev.accountId, plan: 'dev' } : undefined,
      space,
      inputArrived,
      log,
    });
    const smtpPort = await listenOrExplain('SMTP', config.smtpPort, 'SMTP_PORT', () => mail.listen());
    stops.push(() => mail.close());

    stops.push(startSweeper(ctx, config.sweepIntervalMs, (e) => log(`[sweep] ${(e as Error).message}`), inputArrived));

    const state: StackState = { pid: process.pid, store: config.store, apiUrl, smtpPort, ...endpoints };
    fs.writeFileSync(stateFile(config.dataDir), JSON.stringify(state, null, 2));
    stops.push(() => fs.rmSync(stateFile(config.dataDir), { force: true }));

    return { apiUrl, smtpPort, dynamoEndpoint: endpoints?.dynamodb, s3Endpoint: endpoints?.s3, devKey: dev?.key, devKeyMade: dev?.made ?? false, ctx, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
