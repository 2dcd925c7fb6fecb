/**
 * WebhookStore on the one DynamoDB table, in the same generic-key style as dynamo-inbox-store.ts:
 * - an account's webhooks share one partition (`WEBHOOKS#<account>`), beside a counter item that enforces the plan's
 *   limit in the same transaction that adds one;
 * - delivery records live under `WHDLV#<webhook>`, sorted by time, and expire through the table's TTL attribute;
 * - the local form's job queue (`WHJOBS`, sorted by due time) serves the DynamoDB Local stack only: on AWS the
 *   queue is SQS (lambdas/webhooks/sqs-queue.ts) and no job item is ever written.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DeliveryJob, DeliveryRecord, WebhookRecord } from '../core/webhooks';
import type { Page, WebhookStore } from '../core/ports';
import { isConditionFailure, readPages, strip, transactWrite } from './dynamo-items';
import { guard } from './guard';
import { TTL_ATTRIBUTE as TTL } from '../layout/table-layout';

export const webhookKeys = {
  webhook: (accountId: string, webhookId: string) => ({ pk: `WEBHOOKS#${accountId}`, sk: `WEBHOOK#${webhookId}` }),
  count: (accountId: string) => ({ pk: `WEBHOOKS#${accountId}`, sk: 'COUNT' }),
  delivery: (webhookId: string, atIso: string, eventId: string, attempt: number) => ({
    pk: `WHDLV#${webhookId}`,
    sk: `${atIso}#${eventId}#${String(attempt).padStart(3, '0')}`,
  }),
  job: (eventId: string) => ({ pk: 'WHJOBS', sk: eventId }),
};



export class DynamoWebhookStore implements WebhookStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  private call<T>(fn: () => Promise<T>): Promise<T> {
    return guard('DynamoDB', fn);
  }

  async putWebhook(hook: WebhookRecord, maxPerAccount: number): Promise<boolean> {
    try {
      await transactWrite(this.db, this.table, [
        {
          Update: {
            Key: webhookKeys.count(hook.account_id),
            UpdateExpression: 'ADD webhooks :one',
            ConditionExpression: 'attribute_not_exists(webhooks) OR webhooks < :max',
            ExpressionAttributeValues: { ':one': 1, ':max': maxPerAccount },
          },
        },
        { Put: { Item: { ...webhookKeys.webhook(hook.account_id, hook.id), ...hook }, ConditionExpression: 'attribute_not_exists(pk)' } },
      ]);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async getWebhook(accountId: string, webhookId: string): Promise<WebhookRecord | null> {
    const out = await this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: webhookKeys.webhook(accountId, webhookId), ConsistentRead: true })));
    return strip<WebhookRecord>(out.Item);
  }

  async listWebhooks(accountId: string, limit: number, after?: string): Promise<Page<WebhookRecord>> {
    const { pk } = webhookKeys.webhook(accountId, '');
    const out = await this.call(() =>
      this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk > :after',
          // The COUNT item sorts before WEBHOOK#…; `sk > WEBHOOK#<after>` (or `WEBHOOK#`) leaves it out.
          ExpressionAttributeValues: { ':pk': pk, ':after': `WEBHOOK#${after ?? ''}` },
          Limit: limit + 1,
          ConsistentRead: true,
        }),
      ),
    );
    const items = (out.Items ?? []).map((i) => strip<WebhookRecord>(i)!);
    const page = items.slice(0, limit);
    return { items: page, last: items.length > limit ? page[page.length - 1].id : undefined };
  }

  async accountWebhooks(accountId: string): Promise<WebhookRecord[]> {
    const found: WebhookRecord[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.listWebhooks(accountId, 100, after);
      found.push(...page.items);
      if (!page.last) return found;
      after = page.last;
    }
  }

  async deleteWebhook(accountId: string, webhookId: string): Promise<boolean> {
    try {
      await transactWrite(this.db, this.table, [
        { Delete: { Key: webhookKeys.webhook(accountId, webhookId), ConditionExpression: 'attribute_exists(pk)' } },
        { Update: { Key: webhookKeys.count(accountId), UpdateExpression: 'ADD webhooks :minus', ExpressionAttributeValues: { ':minus': -1 } } },
      ]);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async disableWebhook(accountId: string, webhookId: string, reason: string, atIso: string): Promise<boolean> {
    try {
      await this.call(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: webhookKeys.webhook(accountId, webhookId),
            UpdateExpression: 'SET #status = :disabled, disabled_reason = :reason, disabled_at = :at',
            // The first reason wins: a webhook disabled already keeps its own.
            ConditionExpression: 'attribute_exists(pk) AND #status <> :disabled',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':disabled': 'disabled', ':reason': reason, ':at': atIso },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return (await this.getWebhook(accountId, webhookId)) !== null;
      throw error;
    }
  }

  async putDelivery(delivery: DeliveryRecord, keepSeconds: number): Promise<void> {
    const expires = Math.floor(Date.parse(delivery.attempted_at) / 1000) + keepSeconds;
    await this.call(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...webhookKeys.delivery(delivery.webhook_id, delivery.attempted_at, delivery.event_id, delivery.attempt), ...delivery, [TTL]: expires },
        }),
      ),
    );
  }

  async listDeliveries(webhookId: string, limit: number, nowMs: number): Promise<DeliveryRecord[]> {
    const out = await this.call(() =>
      this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          // TTL deletes lag behind expiry; what is past it is left out, as if gone.
          FilterExpression: '#ttl > :now',
          ExpressionAttributeNames: { '#ttl': TTL },
          ExpressionAttributeValues: { ':pk': `WHDLV#${webhookId}`, ':now': Math.floor(nowMs / 1000) },
          ScanIndexForward: false,
          Limit: limit,
        }),
      ),
    );
    return (out.Items ?? []).map((i) => strip<DeliveryRecord>(i, TTL)!);
  }

  async putJobs(jobs: DeliveryJob[]): Promise<void> {
    await Promise.all(
      jobs.map(async (job) => {
        try {
          await this.call(() =>
            this.db.send(new PutCommand({ TableName: this.table, Item: { ...webhookKeys.job(job.event_id), ...job }, ConditionExpression: 'attribute_not_exists(pk)' })),
          );
        } catch (error) {
          if (!isConditionFailure(error)) throw error; // queued already
        }
      }),
    );
  }

  async rescheduleJob(job: DeliveryJob): Promise<void> {
    await this.call(() => this.db.send(new PutCommand({ TableName: this.table, Item: { ...webhookKeys.job(job.event_id), ...job } })));
  }

  async deleteJob(eventId: string): Promise<void> {
    await this.call(() => this.db.send(new DeleteCommand({ TableName: this.table, Key: webhookKeys.job(eventId) })));
  }

  /** The queue is one small partition (a local stack's pending deliveries): a query of it, filtered by due time. */
  async dueJobs(nowMs: number, limit: number): Promise<DeliveryJob[]> {
    const jobs = await this.allJobs();
    return jobs.filter((j) => j.due_at_ms <= nowMs).sort((a, b) => a.due_at_ms - b.due_at_ms).slice(0, limit);
  }

  async nextJobDue(): Promise<number | null> {
    const jobs = await this.allJobs();
    return jobs.length ? Math.min(...jobs.map((j) => j.due_at_ms)) : null;
  }

  private async allJobs(): Promise<DeliveryJob[]> {
    const found: DeliveryJob[] = [];
    const query = { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'WHJOBS' }, ConsistentRead: true };
    for await (const page of readPages(this.db, { query })) for (const item of page.items) found.push(strip<DeliveryJob>(item)!);
    return found;
  }
}
