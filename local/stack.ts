/**
 * The local stack: DynamoDB Local, the S3 server, the gateway, the SMTP stand-in and the sweep, wired to the
 * same Lambda handlers the AWS stack deploys.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { hashApiKey } from '../lambdas/core/ids';
import { loadPlans } from '../lambdas/core/plans';
import { settings } from '../lambdas/core/settings';
import { defaultStores } from '../lambdas/store';
import type { AppContext } from '../lambdas/usecases/context';
import { issueKey } from '../lambdas/usecases/keys';
import { localAwsEnv, LOCAL_BUCKET, LOCAL_TABLE } from './aws-env';
import { ensureBucket, ensureTable } from './bootstrap';
import type { LocalConfig } from './config';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { LocalGateway } from './gateway';
import { startS3Local, type S3Local } from './s3-local';
import { startSweeper } from './sweep';
import { LocalMailServer } from './smtp';

export interface LocalStack {
  apiUrl: string;
  smtpPort: number;
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** A dev key made at this start because the store had none (printed once, never stored). */
  devKey?: string;
  stop(): Promise<void>;
}

export const stateFile = (dataDir: string) => path.join(dataDir, 'stack.json');

export async function startLocalStack(config: LocalConfig, log: (line: string) => void = console.log): Promise<LocalStack> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const dynamoDir = path.join(config.dataDir, 'dynamodb');
  const s3Dir = path.join(config.dataDir, 's3');
  const external = (endpoint: string) => Promise.resolve({ endpoint, pid: undefined, stop: async () => undefined });
  const startDynamo = () =>
    config.externalDynamoEndpoint ? external(config.externalDynamoEndpoint) : startDynamoDbLocal({ host: config.host, port: config.dynamoPort, dataDir: dynamoDir }, log);
  const startS3 = () =>
    config.externalS3Endpoint ? external(config.externalS3Endpoint) : startS3Local({ host: config.host, port: config.s3Port, directory: s3Dir, bucket: LOCAL_BUCKET }, log);
  let dynamo: Pick<DynamoDbLocal, 'endpoint' | 'stop'> | undefined;
  let s3: S3Local | undefined;
  const stops: (() => Promise<void> | void)[] = [];
  try {
    [dynamo, s3] = await Promise.all([startDynamo(), startS3()]);
    Object.assign(
      process.env,
      localAwsEnv({ dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint, table: LOCAL_TABLE, bucket: LOCAL_BUCKET }),
      { TEMPMAIL_DOMAINS: config.domains.join(',') },
      config.planOverrides ? { TEMPMAIL_PLAN_OVERRIDES: config.planOverrides } : {},
    );
    await ensureTable(new DynamoDBClient({}), LOCAL_TABLE);
    await ensureBucket(new S3Client({ forcePathStyle: true }), LOCAL_BUCKET);

    const ctx: AppContext = { stores: defaultStores(), settings: settings(), now: Date.now };
    const keys = ctx.stores.keys;
    for (const seed of config.seedKeys) {
      const existing = await keys.getKey(hashApiKey(seed.key));
      if (!existing) await issueKey(keys, seed.plan, { key: seed.key });
    }
    let devKey: string | undefined;
    if (config.printDevKey && (await keys.listKeys()).length === 0) devKey = (await issueKey(keys, 'dev')).key;

    const gateway = new LocalGateway({ host: config.host, port: config.port, plans: loadPlans(config.planOverrides), bundleDir: config.bundleDir, authorizerCacheSeconds: config.authorizerCacheSeconds });
    const apiUrl = await gateway.listen();
    stops.push(() => gateway.close());

    const mail = new LocalMailServer({ host: config.host, port: config.smtpPort, ctx, bundleDir: config.bundleDir, socketTimeoutMs: config.smtpSocketTimeoutMs, ingestConcurrency: config.ingestConcurrency, log });
    const smtpPort = await mail.listen();
    stops.push(() => mail.close());

    stops.push(startSweeper(ctx, config.sweepIntervalMs, (e) => log(`[sweep] ${(e as Error).message}`)));

    const state = { pid: process.pid, apiUrl, smtpPort, dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint };
    fs.writeFileSync(stateFile(config.dataDir), JSON.stringify(state, null, 2));
    stops.push(() => fs.rmSync(stateFile(config.dataDir), { force: true }));

    return {
      apiUrl,
      smtpPort,
      dynamoEndpoint: dynamo.endpoint,
      s3Endpoint: s3.endpoint,
      devKey,
      async stop() {
        for (const stop of stops.reverse()) await stop();
        await Promise.all([dynamo?.stop(), s3?.stop()]);
      },
    };
  } catch (error) {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    await Promise.all([dynamo?.stop(), s3?.stop()]);
    throw error;
  }
}
