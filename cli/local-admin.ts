/**
 * Key administration against the local stack's table: through the running stack's DynamoDB Local when it is up,
 * otherwise by starting DynamoDB Local on the data directory for the duration of the command.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoInboxStore } from '../lambdas/store/dynamo-inbox-store';
import { LOCAL_TABLE } from '../local/aws-env';
import { ensureTable } from '../local/bootstrap';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { freePort } from '../local/ports';
import { stateFile } from '../local/stack';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs `work` with a key store on the local table, wherever DynamoDB Local is (or has to be) running. */
export async function withLocalKeyStore<T>(dataDir: string, work: (store: DynamoInboxStore) => Promise<T>): Promise<T> {
  const file = stateFile(dataDir);
  let endpoint: string | undefined;
  let stop: (() => Promise<void>) | undefined;
  if (fs.existsSync(file)) {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number; dynamoEndpoint: string };
    if (isAlive(state.pid)) endpoint = state.dynamoEndpoint;
  }
  if (!endpoint) {
    const dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port: await freePort(), dataDir: path.join(dataDir, 'dynamodb') });
    endpoint = dynamo.endpoint;
    stop = () => dynamo.stop();
  }
  try {
    const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(client, LOCAL_TABLE);
    return await work(new DynamoInboxStore(DynamoDBDocumentClient.from(client), LOCAL_TABLE));
  } finally {
    await stop?.();
  }
}
