/**
 * The dynamodb form's stand-ins: AWS's DynamoDB Local and the S3 server as child processes (or endpoints given by
 * the user), with the table and the bucket the AWS stack would create; and the key store the keys CLI uses on such a
 * data folder. Loaded only by that form: the AWS SDK clients it needs cost the embedded form's start about 0.3 s and
 * 20 MB of memory.
 */
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { KeyStore } from '../lambdas/core/ports';
import { awsKeyStore } from '../lambdas/app/context';
import { standInSettings } from '../lambdas/layout/stand-ins';
import { ensureBucket, ensureTable } from './bootstrap';
import { LOCAL_BUCKET, LOCAL_TABLE, type LocalConfig } from './config';
import { startDynamoDbLocal } from './dynamodb-local';
import { freePort } from './ports';
import { startS3Local } from './s3-local';

export interface StandIns {
  endpoints: { dynamodb: string; s3: string };
  stops: (() => Promise<void>)[];
}

export async function startStandIns(config: LocalConfig, log: (line: string) => void): Promise<StandIns> {
  // The stand-ins hold every mail and key hash and check no credentials: loopback only, whatever TEMPMAIL_HOST is.
  const loopback = '127.0.0.1';
  const [dynamo, s3] = await Promise.all([
    config.externalDynamoEndpoint
      ? { endpoint: config.externalDynamoEndpoint, stop: async () => undefined }
      : startDynamoDbLocal({ host: loopback, port: config.dynamoPort, dataDir: path.join(config.dataDir, 'dynamodb') }, log),
    config.externalS3Endpoint
      ? { endpoint: config.externalS3Endpoint, stop: async () => undefined }
      : startS3Local({ host: loopback, port: config.s3Port, directory: path.join(config.dataDir, 's3'), bucket: LOCAL_BUCKET }, log),
  ]);
  const standIns = { endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint }, stops: [() => dynamo.stop(), () => s3.stop()] };
  try {
    await ensureTable(new DynamoDBClient(standInSettings(standIns.endpoints.dynamodb)), LOCAL_TABLE);
    await ensureBucket(new S3Client({ forcePathStyle: true, ...standInSettings(standIns.endpoints.s3) }), LOCAL_BUCKET);
  } catch (error) {
    for (const stop of standIns.stops) await stop().catch(() => undefined);
    throw error;
  }
  return standIns;
}

/**
 * The key store of a dynamodb-form data folder (the keys CLI): through the running stack's DynamoDB Local when
 * `endpoint` is given, or through one started on the folder for the length of the command (`close` stops it).
 */
export async function standInKeyStore(dataDir: string, endpoint?: string): Promise<{ keys: KeyStore; close(): Promise<void> }> {
  let close = async (): Promise<void> => undefined;
  if (!endpoint) {
    const dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port: await freePort(), dataDir: path.join(dataDir, 'dynamodb') });
    endpoint = dynamo.endpoint;
    close = () => dynamo.stop();
  }
  try {
    await ensureTable(new DynamoDBClient(standInSettings(endpoint)), LOCAL_TABLE);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return { keys: awsKeyStore(LOCAL_TABLE, { endpoint }), close };
}
