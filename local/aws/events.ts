/**
 * Lambda's event source mappings for `npm run start:aws`, from the template's AWS::Lambda::EventSourceMapping
 * resources, and DynamoDB's TTL, which DynamoDB Local does not run:
 * - a table's stream: its shards read with the DynamoDB Streams API (GetRecords on DynamoDB Local), records kept
 *   only when they match one of the mapping's FilterCriteria patterns (Lambda's event filtering rules, in
 *   event-filters.ts), batches of BatchSize to the function in shard order; a failed batch is retried from the first failed record
 *   (ReportBatchItemFailures) or halved (BisectBatchOnFunctionError), up to MaximumRetryAttempts, then its
 *   description goes to the OnFailure destination as Lambda sends it, and the shard moves on;
 * - an SQS queue: pollers (at most ScalingConfig.MaximumConcurrency) receive batches of BatchSize and invoke the
 *   function; the messages it succeeded on are deleted, the failed ones (the whole batch on an error, or the
 *   batchItemFailures) come back after the queue's visibility timeout and go to its dead-letter queue past
 *   maxReceiveCount;
 * - TTL: every TEMPMAIL_TTL_INTERVAL_MS (60 s by default) items whose TTL attribute is in the past are deleted, and
 *   their stream REMOVE records carry userIdentity {type: Service, principalId: dynamodb.amazonaws.com}, as TTL
 *   deletions do on AWS (DynamoDB deletes within days of expiry there; here within one interval).
 */
import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { FunctionRunner } from './functions';
import type { TableInfo } from './resources';
import type { LocalQueue, LocalSqs } from './sqs';
import type { LocalStackModel } from './template';
import type { Dict } from './cfn-json';
import { matchesPattern } from './event-filters';

/** A key as one string whatever the order of its attributes. */
const keyText = (table: string, key: Dict | undefined) =>
  `${table}\0${JSON.stringify(Object.entries(key ?? {}).sort(([a], [b]) => a.localeCompare(b)))}`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** DynamoDB Streams' JSON API on DynamoDB Local (it checks no signature; the SDK has no streams client here). */
async function streamsCall(endpoint: string, operation: string, input: Dict): Promise<Dict> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': `DynamoDBStreams_20120810.${operation}`,
      Authorization: 'AWS4-HMAC-SHA256 Credential=S3RVER/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(input),
  });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as Dict) : {};
  if (!res.ok) throw Object.assign(new Error(`${operation}: ${body.message ?? body.Message ?? text}`), { name: String(body.__type ?? '').split('#').pop() });
  return body;
}

interface StreamMapping {
  logicalId: string;
  functionLogicalId: string;
  table: TableInfo;
  streamArn: string;
  batchSize: number;
  filters: unknown[];
  bisect: boolean;
  maxRetries: number;
  reportItemFailures: boolean;
  onFailure?: string;
  startingPosition: string;
}

export interface EventSourceOptions {
  model: LocalStackModel;
  functions: FunctionRunner;
  sqs: LocalSqs;
  tables: TableInfo[];
  dynamoEndpoint: string;
  dynamo: DynamoDBClient;
  log: (line: string) => void;
  ttlIntervalMs: number;
  /**
   * The IAM check of the reads Lambda's event source mapping makes with the function's role (the stream's, the
   * queue's): a mapping whose role may not read its source fails the start, as CloudFormation fails to create it.
   */
  authorize?: (functionLogicalId: string, action: string, resource: string) => Promise<{ allowed: boolean; reason: string }>;
}

export class EventSources {
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  /**
   * Keys (table + key JSON) the TTL emulation deleted, each with the stream mappings that have yet to read its
   * REMOVE record: it is TTL's for every one of them (a table's stream may feed several mappings).
   */
  private readonly ttlDeleted = new Map<string, Set<string>>();
  private readonly streamMappings: StreamMapping[] = [];
  private ttlTimer?: NodeJS.Timeout;
  /** Batches being processed (tests wait for quiet). */
  private busy = 0;

  constructor(private readonly options: EventSourceOptions) {}

  async start(): Promise<void> {
    const { model } = this.options;
    for (const [id, r] of model.resources('AWS::Lambda::EventSourceMapping')) {
      const p = model.resolve(r.Properties ?? {}) as Dict;
      if (p.Enabled === false) continue;
      const fn = model.functionByArn(String(p.FunctionName));
      if (!fn) throw new Error(`event source mapping ${id}: its function ${p.FunctionName} is not in the template`);
      const source = String(p.EventSourceArn);
      const queue = this.options.sqs.byArn(source);
      const reads = queue
        ? ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']
        : // ListStreams takes no resource (IAM evaluates it on *), and the mapping does not need it.
          ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];
      for (const action of reads) {
        const decision = await this.options.authorize?.(fn, action, source);
        if (decision && !decision.allowed) throw new Error(`event source mapping ${id}: the role of ${fn} may not ${action} on ${source}: ${decision.reason}`);
      }
      if (queue) {
        this.startQueue(id, fn, queue, p);
        continue;
      }
      const table = this.options.tables.find((t) => source === String(model.getAtt(t.logicalId, 'StreamArn')));
      if (table) {
        if (!table.streamViewType) throw new Error(`event source mapping ${id}: the table ${table.logicalId} has no stream`);
        await this.startStream({
          logicalId: id,
          functionLogicalId: fn,
          table,
          streamArn: source,
          batchSize: Number(p.BatchSize ?? 100),
          filters: ((p.FilterCriteria?.Filters ?? []) as { Pattern: string }[]).map((f) => JSON.parse(f.Pattern)),
          bisect: p.BisectBatchOnFunctionError === true,
          maxRetries: p.MaximumRetryAttempts === undefined ? -1 : Number(p.MaximumRetryAttempts),
          reportItemFailures: ((p.FunctionResponseTypes ?? []) as string[]).includes('ReportBatchItemFailures'),
          onFailure: p.DestinationConfig?.OnFailure?.Destination,
          startingPosition: String(p.StartingPosition ?? 'LATEST'),
        });
        continue;
      }
      this.options.log(`[events] ${id}: event source ${source} is not run locally`);
    }
    this.startTtl();
  }

  /** Resolves once no batch is being processed (tests). */
  async quiet(): Promise<void> {
    while (this.busy > 0) await sleep(50);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.ttlTimer);
    await Promise.race([Promise.allSettled(this.loops), sleep(3_000)]);
  }

  // ---- SQS ----
  private startQueue(id: string, fn: string, queue: LocalQueue, p: Dict): void {
    const batchSize = Number(p.BatchSize ?? 10);
    const pollers = Math.max(2, Number(p.ScalingConfig?.MaximumConcurrency ?? 5));
    const reportItemFailures = ((p.FunctionResponseTypes ?? []) as string[]).includes('ReportBatchItemFailures');
    const sourceArn = queue.arn;
    const poll = async () => {
      while (!this.stopped) {
        const messages = queue.receive(batchSize);
        if (!messages.length) {
          await queue.waitForMessages(1_000);
          continue;
        }
        this.busy++;
        try {
          const event = {
            Records: messages.map((m) => ({
              messageId: m.messageId,
              receiptHandle: m.receiptHandle,
              body: m.body,
              attributes: {
                ApproximateReceiveCount: String(m.receiveCount),
                SentTimestamp: String(m.sentAt),
                SenderId: 'AROALOCAL',
                ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt ?? m.sentAt),
              },
              messageAttributes: {},
              md5OfBody: m.md5,
              eventSource: 'aws:sqs',
              eventSourceARN: sourceArn,
              awsRegion: this.options.model.region,
            })),
          };
          const outcome = await this.options.functions.invoke(fn, event);
          if (!outcome.ok) continue; // all come back after the visibility timeout
          const failed = new Set(reportItemFailures ? (((outcome.payload as Dict | null)?.batchItemFailures ?? []) as { itemIdentifier: string }[]).map((f) => f.itemIdentifier) : []);
          for (const m of messages) if (!failed.has(m.messageId)) queue.delete(m.receiptHandle!);
        } catch (error) {
          this.options.log(`[events] ${id}: ${(error as Error).message}`);
        } finally {
          this.busy--;
        }
      }
    };
    for (let i = 0; i < pollers; i++) this.loops.push(poll());
  }

  // ---- DynamoDB streams ----
  private async startStream(mapping: StreamMapping): Promise<void> {
    this.streamMappings.push(mapping);
    const endpoint = this.options.dynamoEndpoint;
    // DynamoDB Local's own stream ARN (its LatestStreamArn), not the template's.
    const described = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.DescribeTable',
        Authorization: 'AWS4-HMAC-SHA256 Credential=S3RVER/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: JSON.stringify({ TableName: mapping.table.name }),
    }).then((r) => r.json() as Promise<Dict>);
    const localArn = String(described.Table?.LatestStreamArn ?? '');
    if (!localArn) throw new Error(`table ${mapping.table.name} has no stream in DynamoDB Local`);
    const iterators = new Map<string, string>();
    const discover = async (initial: boolean) => {
      const stream = await streamsCall(endpoint, 'DescribeStream', { StreamArn: localArn });
      for (const shard of (stream.StreamDescription?.Shards ?? []) as Dict[]) {
        if (iterators.has(shard.ShardId) || done.has(shard.ShardId)) continue;
        const open = !shard.SequenceNumberRange?.EndingSequenceNumber;
        // At start, LATEST on the open shards; shards found later (a split) are read from their beginning.
        const type = initial && mapping.startingPosition === 'LATEST' ? (open ? 'LATEST' : undefined) : 'TRIM_HORIZON';
        if (!type) {
          done.add(shard.ShardId);
          continue;
        }
        const it = await streamsCall(endpoint, 'GetShardIterator', { StreamArn: localArn, ShardId: shard.ShardId, ShardIteratorType: type });
        iterators.set(shard.ShardId, String(it.ShardIterator));
      }
    };
    const done = new Set<string>();
    await discover(true);
    const loop = async () => {
      let sinceDiscover = 0;
      while (!this.stopped) {
        let got = 0;
        for (const [shardId, iterator] of [...iterators]) {
          try {
            const out = await streamsCall(endpoint, 'GetRecords', { ShardIterator: iterator, Limit: 1000 });
            const records = (out.Records ?? []) as Dict[];
            got += records.length;
            if (records.length) await this.deliver(mapping, shardId, records);
            if (out.NextShardIterator) iterators.set(shardId, String(out.NextShardIterator));
            else {
              iterators.delete(shardId);
              done.add(shardId);
            }
          } catch (error) {
            if ((error as Error).name === 'ExpiredIteratorException' || (error as Error).name === 'TrimmedDataAccessException') {
              iterators.delete(shardId);
            } else if (!this.stopped) this.options.log(`[events] ${mapping.logicalId}: ${(error as Error).message}`);
          }
        }
        if ((sinceDiscover += 1) >= 20 || iterators.size === 0) {
          sinceDiscover = 0;
          await discover(false).catch((error) => !this.stopped && this.options.log(`[events] ${mapping.logicalId}: ${(error as Error).message}`));
        }
        if (!got) await sleep(250);
      }
    };
    this.loops.push(loop());
  }

  /** Lambda's record: DynamoDB's, with the source ARN and region of the template's stream. */
  private lambdaRecord(mapping: StreamMapping, record: Dict): Dict {
    const keyId = keyText(mapping.table.name, record.dynamodb?.Keys);
    const pending = record.eventName === 'REMOVE' ? this.ttlDeleted.get(keyId) : undefined;
    const byTtl = pending?.delete(mapping.logicalId) ?? false;
    if (pending?.size === 0) this.ttlDeleted.delete(keyId);
    return {
      ...record,
      awsRegion: this.options.model.region,
      eventSourceARN: mapping.streamArn,
      ...(byTtl ? { userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' } } : {}),
    };
  }

  private async deliver(mapping: StreamMapping, shardId: string, raw: Dict[]): Promise<void> {
    const records = raw.map((r) => this.lambdaRecord(mapping, r)).filter((r) => mapping.filters.length === 0 || mapping.filters.some((f) => matchesPattern(f, r)));
    for (let i = 0; i < records.length; i += mapping.batchSize) {
      this.busy++;
      try {
        await this.deliverBatch(mapping, shardId, records.slice(i, i + mapping.batchSize));
      } finally {
        this.busy--;
      }
    }
  }

  private async deliverBatch(mapping: StreamMapping, shardId: string, batch: Dict[]): Promise<void> {
    let pending = batch;
    let attempts = 0;
    while (pending.length && !this.stopped) {
      const outcome = await this.options.functions.invoke(mapping.functionLogicalId, { Records: pending });
      let failedFrom = -1;
      if (!outcome.ok) failedFrom = 0;
      else if (mapping.reportItemFailures) {
        const failures = (((outcome.payload as Dict | null)?.batchItemFailures ?? []) as { itemIdentifier: string }[]).map((f) => f.itemIdentifier);
        if (failures.length) {
          const indexes = failures.map((id) => pending.findIndex((r) => r.dynamodb?.SequenceNumber === id));
          // An identifier that names no record fails the whole batch, as on AWS.
          failedFrom = indexes.some((x) => x < 0) ? 0 : Math.min(...indexes);
        }
      }
      if (failedFrom < 0) return;
      pending = pending.slice(failedFrom);
      attempts++;
      if (mapping.maxRetries >= 0 && attempts > mapping.maxRetries) {
        await this.streamFailure(mapping, shardId, pending, outcome.ok ? undefined : outcome.errorType, attempts);
        return;
      }
      if (mapping.bisect && pending.length > 1) {
        const half = Math.ceil(pending.length / 2);
        await this.deliverBatch(mapping, shardId, pending.slice(0, half));
        pending = pending.slice(half);
        continue;
      }
      await sleep(Math.min(10_000, 200 * 2 ** attempts));
    }
  }

  private async streamFailure(mapping: StreamMapping, shardId: string, batch: Dict[], error: string | undefined, attempts: number): Promise<void> {
    this.options.log(`[events] ${mapping.logicalId}: ${batch.length} stream record(s) failed ${attempts} times${mapping.onFailure ? '; sent to the on-failure destination' : '; dropped'}`);
    if (!mapping.onFailure) return;
    const queue = this.options.sqs.byArn(mapping.onFailure);
    if (!queue) return this.options.log(`[events] ${mapping.logicalId}: on-failure destination ${mapping.onFailure} is not a queue of the template`);
    queue.send(
      JSON.stringify({
        requestContext: { requestId: randomUUID(), functionArn: this.options.functions.spec(mapping.functionLogicalId).arn, condition: 'RetryAttemptsExhausted', approximateInvokeCount: attempts },
        responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: error ?? 'Unhandled' },
        version: '1.0',
        timestamp: new Date().toISOString(),
        DDBStreamBatchInfo: {
          shardId,
          startSequenceNumber: batch[0].dynamodb?.SequenceNumber,
          endSequenceNumber: batch[batch.length - 1].dynamodb?.SequenceNumber,
          approximateArrivalOfFirstRecord: new Date().toISOString(),
          approximateArrivalOfLastRecord: new Date().toISOString(),
          batchSize: batch.length,
          streamArn: mapping.streamArn,
        },
      }),
    );
  }

  // ---- TTL ----
  private startTtl(): void {
    const { model } = this.options;
    const ttlTables = this.options.tables
      .map((t) => ({ table: t, attribute: (model.resolve(model.resource(t.logicalId).Properties?.TimeToLiveSpecification) as Dict | undefined)?.AttributeName as string | undefined }))
      .filter((t): t is { table: TableInfo; attribute: string } => Boolean(t.attribute));
    if (!ttlTables.length) return;
    const keyNames = (t: TableInfo) => ((model.resolve(model.resource(t.logicalId).Properties?.KeySchema) ?? []) as { AttributeName: string }[]).map((k) => k.AttributeName);
    const sweep = async () => {
      for (const { table, attribute } of ttlTables) {
        let start: Dict | undefined;
        const now = Math.floor(Date.now() / 1000);
        do {
          const page = await this.options.dynamo.send(
            new ScanCommand({
              TableName: table.name,
              FilterExpression: '#ttl < :now',
              ExpressionAttributeNames: { '#ttl': attribute },
              ExpressionAttributeValues: { ':now': { N: String(now) } },
              ExclusiveStartKey: start,
            }),
          );
          for (const item of page.Items ?? []) {
            const key = Object.fromEntries(keyNames(table).map((k) => [k, item[k]]));
            const id = keyText(table.name, key);
            this.ttlDeleted.set(id, new Set(this.streamMappings.filter((m) => m.table.name === table.name).map((m) => m.logicalId)));
            await this.options.dynamo
              .send(new DeleteItemCommand({ TableName: table.name, Key: key, ConditionExpression: '#ttl < :now', ExpressionAttributeNames: { '#ttl': attribute }, ExpressionAttributeValues: { ':now': { N: String(now) } } }))
              .catch(() => this.ttlDeleted.delete(id));
          }
          start = page.LastEvaluatedKey;
        } while (start && !this.stopped);
      }
    };
    const schedule = () => {
      if (this.stopped) return;
      this.ttlTimer = setTimeout(() => {
        sweep()
          .catch((error) => this.options.log(`[ttl] ${(error as Error).message}`))
          .finally(schedule);
      }, this.options.ttlIntervalMs);
      this.ttlTimer.unref();
    };
    schedule();
  }
}
