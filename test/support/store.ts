/** Direct access to a stack's table and bucket, for seeding data and checking what is stored. */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoInboxStore, keys } from '../../lambdas/store/dynamo-inbox-store';
import { S3BlobStore } from '../../lambdas/store/s3-blob-store';
import { LOCAL_BUCKET, LOCAL_TABLE } from '../../local/aws-env';

const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export function storesFor(stack: { dynamoEndpoint: string; s3Endpoint: string }) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const dynamo = new DynamoDBClient({ endpoint: stack.dynamoEndpoint, region: 'us-east-1', credentials });
  const doc = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const s3 = new S3Client({
    endpoint: stack.s3Endpoint,
    region: 'us-east-1',
    credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const inboxes = new DynamoInboxStore(doc, LOCAL_TABLE);
  const blobs = new S3BlobStore(s3, LOCAL_BUCKET);
  return {
    inboxes,
    blobs,
    /** Moves an inbox's expiry (and its claim's) to `epoch`: time passing, without waiting for it. */
    async setExpiry(inboxId: string, email: string, epoch: number) {
      await doc.send(new UpdateCommand({ TableName: LOCAL_TABLE, Key: keys.inbox(inboxId), UpdateExpression: 'SET expires_at_epoch = :e, expires_at = :iso', ExpressionAttributeValues: { ':e': epoch, ':iso': new Date(epoch * 1000).toISOString() } }));
      await doc.send(new UpdateCommand({ TableName: LOCAL_TABLE, Key: keys.address(email), UpdateExpression: 'SET expires_at_epoch = :e', ExpressionAttributeValues: { ':e': epoch } }));
    },
    /** Makes an address claim look as claims did before they carried routing fields (inbox id and expiry only). */
    async stripClaimRouting(email: string) {
      await doc.send(new UpdateCommand({ TableName: LOCAL_TABLE, Key: keys.address(email), UpdateExpression: 'REMOVE account_id, #plan', ExpressionAttributeNames: { '#plan': 'plan' } }));
    },
    /** Every item key in the table, raw. */
    async allItemKeys(): Promise<string[]> {
      const out: string[] = [];
      let start: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
      do {
        const page = await dynamo.send(new ScanCommand({ TableName: LOCAL_TABLE, ProjectionExpression: 'pk, sk', ExclusiveStartKey: start }));
        for (const item of page.Items ?? []) out.push(`${item.pk.S}|${item.sk.S}`);
        start = page.LastEvaluatedKey;
      } while (start);
      return out;
    },
  };
}
