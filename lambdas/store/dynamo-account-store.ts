/**
 * The account-wide items of the DynamoDB table (DESIGN §4): API keys (KeyStore) and the storage quota's usage
 * (`STORAGE#<account>`). DynamoInboxStore extends it, so that one object serves the inbox and key ports as before.
 */
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../core/model';
import type { KeyStore } from '../core/ports';
import { isConditionFailure, readPages, strip } from './dynamo-items';
import { guard } from './guard';
import { keys } from '../layout/table-layout';

export class DynamoAccountStore implements KeyStore {
  constructor(
    protected readonly db: DynamoDBDocumentClient,
    protected readonly table: string,
  ) {}

  protected call<T>(fn: () => Promise<T>): Promise<T> {
    return guard('DynamoDB', fn);
  }

  /** Every item of the table that passes `filter`, page after page (the sweep and the key list: rare, small). */
  protected async scanAll(filter: string, values: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const found: Record<string, unknown>[] = [];
    for await (const page of readPages(this.db, { scan: { TableName: this.table, FilterExpression: filter, ExpressionAttributeValues: values } })) found.push(...page.items);
    return found;
  }

  async storageUsed(accountId: string): Promise<number> {
    const out = await this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.storage(accountId), ConsistentRead: true })));
    return Math.max(0, Number(out.Item?.bytes ?? 0));
  }

  async releaseStorage(accountId: string, bytes: number): Promise<void> {
    if (bytes <= 0) return;
    const update = (expression: string, condition: string, values: Record<string, number>) =>
      this.call(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: keys.storage(accountId),
            UpdateExpression: expression,
            ConditionExpression: condition,
            ExpressionAttributeNames: { '#bytes': 'bytes' },
            ExpressionAttributeValues: values,
          }),
        ),
      );
    try {
      await update('SET #bytes = #bytes - :freed', '#bytes >= :freed', { ':freed': bytes });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Less than that left (usage from before the quota was counted): none.
      await update('SET #bytes = :zero', 'attribute_exists(#bytes)', { ':zero': 0 }).catch((e) => {
        if (!isConditionFailure(e)) throw e;
      });
    }
  }

  // --- API keys -------------------------------------------------------------------------------------------

  async putKey(key: ApiKeyRecord): Promise<void> {
    await this.call(() =>
      this.db.send(new PutCommand({ TableName: this.table, Item: { ...keys.apiKey(key.key_hash), ...key }, ConditionExpression: 'attribute_not_exists(pk)' })),
    );
  }

  async getKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const out = await this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.apiKey(keyHash) })));
    return strip<ApiKeyRecord>(out.Item);
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (await this.scanAll('sk = :key', { ':key': 'KEY' })).map((item) => strip<ApiKeyRecord>(item)!).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async revokeKey(keyHash: string, atIso: string): Promise<ApiKeyRecord | null> {
    try {
      const out = await this.call(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: keys.apiKey(keyHash),
            UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :at)',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':at': atIso },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return strip<ApiKeyRecord>(out.Attributes);
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }
}
