/** The storage contract on the AWS adapters: DynamoDB Local and the S3 server, started for this file. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { appConfig } from '../../lambdas/config/app-config';
import { standInSettings } from '../../lambdas/layout/stand-ins';
import { appContext } from '../../lambdas/app/context';
import { ensureBucket, ensureTable } from '../../local/bootstrap';
import { LOCAL_BUCKET, LOCAL_TABLE } from '../../local/config';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/ports';
import { startS3Local } from '../../local/s3-local';
import { storeContract } from './contract';

storeContract('DynamoDB Local and the S3 server', async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-contract-'));
  const [dynamo, s3] = await Promise.all([
    freePort().then((port) => startDynamoDbLocal({ host: '127.0.0.1', port, dataDir: path.join(dataDir, 'dynamodb') })),
    freePort().then((port) => startS3Local({ host: '127.0.0.1', port, directory: path.join(dataDir, 's3'), bucket: LOCAL_BUCKET })),
  ]);
  await ensureTable(new DynamoDBClient(standInSettings(dynamo.endpoint)), LOCAL_TABLE);
  await ensureBucket(new S3Client({ forcePathStyle: true, ...standInSettings(s3.endpoint) }), LOCAL_BUCKET);
  const ctx = appContext(appConfig({ store: { kind: 'dynamodb', table: LOCAL_TABLE, bucket: LOCAL_BUCKET, endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint } } }));
  return {
    ctx,
    async close() {
      await Promise.all([dynamo.stop(), s3.stop()]);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
