/**
 * SQS for `npm run start:aws`: the template's AWS::SQS::Queue resources, in process, with their VisibilityTimeout,
 * DelaySeconds, MessageRetentionPeriod and RedrivePolicy (a message received more than maxReceiveCount times moves to
 * the dead-letter queue), served on loopback over SQS's JSON protocol (the one the AWS SDK v3 speaks) for the
 * functions (SendMessage, SendMessageBatch) and the CLI's `replay` (ReceiveMessage, DeleteMessage), and read in
 * process by the event source mappings (events.ts). Messages live in memory: a restart loses queued deliveries,
 * which SQS never does (docs/DEPLOY.md says so).
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { LocalStackModel } from './template';
import type { AwsJson } from './cfn-json';

export interface SqsMessage {
  messageId: string;
  body: string;
  md5: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  receiptHandle?: string;
  attributes: Record<string, string>;
}

export class LocalQueue {
  readonly messages: SqsMessage[] = [];
  deadLetter?: { queue: LocalQueue; maxReceiveCount: number };
  /** Wakes receivers waiting for a message. */
  private waiters: (() => void)[] = [];

  constructor(
    readonly logicalId: string,
    readonly name: string,
    readonly arn: string,
    readonly url: string,
    readonly visibilityTimeoutSeconds: number,
    readonly delaySeconds: number,
    readonly retentionSeconds: number,
  ) {}

  send(body: string, delaySeconds = this.delaySeconds, attributes: Record<string, string> = {}): SqsMessage {
    const now = Date.now();
    const message: SqsMessage = {
      messageId: randomUUID(),
      body,
      md5: createHash('md5').update(body).digest('hex'),
      sentAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
      attributes,
    };
    this.messages.push(message);
    this.wake();
    if (delaySeconds > 0) setTimeout(() => this.wake(), delaySeconds * 1000 + 5).unref();
    return message;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Visible messages, made invisible for `visibilitySeconds`; past maxReceiveCount a message moves to the DLQ instead. */
  receive(max: number, visibilitySeconds = this.visibilityTimeoutSeconds): SqsMessage[] {
    const now = Date.now();
    const out: SqsMessage[] = [];
    for (let i = 0; i < this.messages.length && out.length < max; i++) {
      const m = this.messages[i];
      if (now - m.sentAt > this.retentionSeconds * 1000) {
        this.messages.splice(i--, 1);
        continue;
      }
      if (m.visibleAt > now) continue;
      if (this.deadLetter && m.receiveCount >= this.deadLetter.maxReceiveCount) {
        this.messages.splice(i--, 1);
        const moved = this.deadLetter.queue.send(m.body, 0, m.attributes);
        moved.receiveCount = 0;
        continue;
      }
      m.receiveCount++;
      m.firstReceivedAt ??= now;
      m.receiptHandle = `${m.messageId}#${randomUUID()}`;
      m.visibleAt = now + visibilitySeconds * 1000;
      setTimeout(() => this.wake(), visibilitySeconds * 1000 + 5).unref();
      out.push(m);
    }
    return out;
  }

  /** Waits up to `ms` for a message to become visible (long polling). */
  waitForMessages(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  delete(receiptHandle: string): boolean {
    const i = this.messages.findIndex((m) => m.receiptHandle === receiptHandle);
    if (i < 0) return false;
    this.messages.splice(i, 1);
    return true;
  }

  changeVisibility(receiptHandle: string, seconds: number): boolean {
    const m = this.messages.find((x) => x.receiptHandle === receiptHandle);
    if (!m) return false;
    m.visibleAt = Date.now() + seconds * 1000;
    setTimeout(() => this.wake(), seconds * 1000 + 5).unref();
    return true;
  }

  /** Visible (ApproximateNumberOfMessages) and in flight. */
  counts(): { visible: number; inFlight: number; delayed: number } {
    const now = Date.now();
    let visible = 0;
    let inFlight = 0;
    let delayed = 0;
    for (const m of this.messages) {
      if (m.visibleAt <= now) visible++;
      else if (m.receiveCount > 0) inFlight++;
      else delayed++;
    }
    return { visible, inFlight, delayed };
  }
}

class SqsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** Checks a call (the IAM gate): its caller's access key id, the IAM action and the queue's ARN. */
export type SqsAuthorize = (accessKeyId: string | undefined, action: string, resource: string) => Promise<{ allowed: boolean; reason?: string }>;

export class LocalSqs {
  readonly queues = new Map<string, LocalQueue>();
  private server?: http.Server;

  constructor(private readonly authorize?: SqsAuthorize) {}

  /** The template's queues, with their redrive policies. */
  static fromTemplate(model: LocalStackModel, authorize?: SqsAuthorize): LocalSqs {
    const sqs = new LocalSqs(authorize);
    const redrives: [LocalQueue, { deadLetterTargetArn?: string; maxReceiveCount?: number }][] = [];
    for (const [id, r] of model.resources('AWS::SQS::Queue')) {
      const p = (model.resolve(r.Properties ?? {}) ?? {}) as Record<string, unknown>;
      const queue = new LocalQueue(
        id,
        model.queueName(id),
        String(model.getAtt(id, 'Arn')),
        model.queueUrl(id),
        Number(p.VisibilityTimeout ?? 30),
        Number(p.DelaySeconds ?? 0),
        Number(p.MessageRetentionPeriod ?? 345_600),
      );
      sqs.queues.set(queue.name, queue);
      if (p.RedrivePolicy) redrives.push([queue, (typeof p.RedrivePolicy === 'string' ? JSON.parse(p.RedrivePolicy) : p.RedrivePolicy) as { deadLetterTargetArn?: string; maxReceiveCount?: number }]);
    }
    for (const [queue, policy] of redrives) {
      const target = sqs.byArn(String(policy.deadLetterTargetArn));
      if (!target) throw new Error(`queue ${queue.logicalId}: its dead-letter queue ${policy.deadLetterTargetArn} is not in the template`);
      queue.deadLetter = { queue: target, maxReceiveCount: Number(policy.maxReceiveCount ?? 10) };
    }
    return sqs;
  }

  byArn(arn: string): LocalQueue | undefined {
    return [...this.queues.values()].find((q) => q.arn === arn);
  }

  byUrl(url: string): LocalQueue {
    const name = String(url).split('/').pop() ?? '';
    const queue = this.queues.get(name);
    if (!queue) throw new SqsError('AWS.SimpleQueueService.NonExistentQueue', 'The specified queue does not exist.');
    return queue;
  }

  async listen(host: string, port: number): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const target = String(req.headers['x-amz-target'] ?? '');
        const action = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
        let input: Record<string, unknown> = {};
        try {
          input = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
        } catch {
          // answered below as a bad request
        }
        const accessKeyId = /Credential=([^/,\s]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
        this.check(accessKeyId, action, input)
          .then(() => this.handle(action, input))
          .then(
          (output) => {
            res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': randomUUID() });
            res.end(JSON.stringify(output));
          },
          (error: Error) => {
            const e = error instanceof SqsError ? error : new SqsError('InternalError', error.message, 500);
            res.writeHead(e.status, { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-query-error': `${e.code};Sender` });
            res.end(JSON.stringify({ __type: `com.amazonaws.sqs#${e.code}`, message: e.message }));
          },
        );
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    return `http://${host}:${(this.server.address() as { port: number }).port}`;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** The IAM check SQS makes: batch calls are authorised as their single action (SendMessageBatch by SendMessage). */
  private async check(accessKeyId: string | undefined, action: string, input: Record<string, AwsJson>): Promise<void> {
    if (!this.authorize || !action) return;
    const queue = input.QueueUrl ? this.byUrl(input.QueueUrl) : undefined;
    const iamAction = `sqs:${action.replace(/Batch$/, '')}`;
    const decision = await this.authorize(accessKeyId, iamAction, queue?.arn ?? '*');
    if (!decision.allowed) throw new SqsError('AccessDenied', `User: ${accessKeyId} is not authorized to perform: ${iamAction} on resource: ${queue?.arn ?? '*'}`, 403);
  }

  private async handle(action: string, input: Record<string, AwsJson>): Promise<unknown> {
    switch (action) {
      case 'SendMessage': {
        const m = this.byUrl(input.QueueUrl).send(String(input.MessageBody ?? ''), input.DelaySeconds);
        return { MessageId: m.messageId, MD5OfMessageBody: m.md5 };
      }
      case 'SendMessageBatch': {
        const queue = this.byUrl(input.QueueUrl);
        const entries = (input.Entries ?? []) as { Id: string; MessageBody: string; DelaySeconds?: number }[];
        if (entries.length > 10) throw new SqsError('AWS.SimpleQueueService.TooManyEntriesInBatchRequest', `Maximum number of entries per request are 10. You have sent ${entries.length}.`);
        return {
          Successful: entries.map((e) => {
            const m = queue.send(e.MessageBody, e.DelaySeconds);
            return { Id: e.Id, MessageId: m.messageId, MD5OfMessageBody: m.md5 };
          }),
          Failed: [],
        };
      }
      case 'ReceiveMessage': {
        const queue = this.byUrl(input.QueueUrl);
        const max = Math.min(10, Number(input.MaxNumberOfMessages ?? 1));
        let got = queue.receive(max, input.VisibilityTimeout);
        if (!got.length && input.WaitTimeSeconds) {
          await queue.waitForMessages(Math.min(20, Number(input.WaitTimeSeconds)) * 1000);
          got = queue.receive(max, input.VisibilityTimeout);
        }
        return {
          Messages: got.map((m) => ({
            MessageId: m.messageId,
            ReceiptHandle: m.receiptHandle,
            MD5OfBody: m.md5,
            Body: m.body,
            Attributes: { ApproximateReceiveCount: String(m.receiveCount), SentTimestamp: String(m.sentAt) },
          })),
        };
      }
      case 'DeleteMessage':
        this.byUrl(input.QueueUrl).delete(String(input.ReceiptHandle));
        return {};
      case 'ChangeMessageVisibility':
        if (!this.byUrl(input.QueueUrl).changeVisibility(String(input.ReceiptHandle), Number(input.VisibilityTimeout))) {
          throw new SqsError('ReceiptHandleIsInvalid', 'The input receipt handle is invalid.');
        }
        return {};
      case 'GetQueueUrl': {
        const queue = this.queues.get(String(input.QueueName));
        if (!queue) throw new SqsError('AWS.SimpleQueueService.NonExistentQueue', 'The specified queue does not exist.');
        return { QueueUrl: queue.url };
      }
      case 'GetQueueAttributes': {
        const queue = this.byUrl(input.QueueUrl);
        const c = queue.counts();
        return {
          Attributes: {
            QueueArn: queue.arn,
            ApproximateNumberOfMessages: String(c.visible),
            ApproximateNumberOfMessagesNotVisible: String(c.inFlight),
            ApproximateNumberOfMessagesDelayed: String(c.delayed),
            VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
          },
        };
      }
      case 'PurgeQueue':
        this.byUrl(input.QueueUrl).messages.length = 0;
        return {};
      default:
        throw new SqsError('InvalidAction', `The action ${action || '(none)'} is not valid for this endpoint.`);
    }
  }
}
