/**
 * Webhook delivery on AWS (the local form runs the same use cases in local/webhook-dispatcher.ts):
 *   table stream (filtered: message inserts, inboxes removed by TTL) → dispatcher function → SQS delivery queue →
 *   sender function (one attempt per job; retries go back on the queue with a delay) → the customer's endpoint.
 * - A KMS key seals the signing secrets: the create route may only Encrypt, the sender only Decrypt.
 * - The dead-letter queue holds jobs past the retry schedule (sent there by the sender, the webhook is disabled),
 *   jobs the sender failed to run five times, and stream batches the dispatcher could not process; an alarm
 *   watches its depth (lib/dead-letters.ts, shared with the inbox cleanup).
 * - Delivery records expire through the table's TTL after seven days (lambdas/core/webhook-retries.ts).
 * The SQS queues use SQS-managed encryption: no key policy to keep, no KMS call per message.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DELIVERY_TIMEOUT_MS } from '../lambdas/core/webhook-retries';
import { WEBHOOK_DISPATCHER_ACCESS, WEBHOOK_DISPATCHER_HANDLER, WEBHOOK_SENDER_ACCESS, WEBHOOK_SENDER_HANDLER } from '../lambdas/layout/functions';
import { INBOX_SK, MESSAGE_SK_PREFIX, TTL_PRINCIPAL } from '../lambdas/layout/table-layout';
import { consumeStream, watchedDeadLetters } from './dead-letters';
import { handlerFunction, type WebhookResources } from './functions';

/** Jobs in one sender invocation, attempted in parallel. */
export const SENDER_BATCH_SIZE = 10;
/** One attempt's timeout plus room for the record, the retry and a KMS call. */
export const SENDER_TIMEOUT_SECONDS = Math.ceil(DELIVERY_TIMEOUT_MS / 1000) + 10;
/** Receives of one job before SQS moves it to the dead-letter queue (faults on our side only: an attempt that fails
 * at the receiver is a new, delayed message, not a receive again). */
export const SENDER_MAX_RECEIVES = 5;
/** Sender functions running at once: bounds the outbound connections and what a flood of mail costs. */
export const SENDER_MAX_CONCURRENCY = 20;

export interface WebhooksProps {
  table: dynamodb.ITableV2;
  bucket: s3.IBucket;
  domains: string[];
  logRetention?: logs.RetentionDays;
  removalPolicy?: RemovalPolicy;
}

export class Webhooks extends Construct implements WebhookResources {
  readonly secretsKey: kms.Key;
  readonly deliveries: sqs.Queue;
  readonly deliveryDeadLetters: sqs.Queue;
  readonly dispatcher: lambda.Function;
  readonly sender: lambda.Function;
  readonly deadLetterDepth: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    this.secretsKey = new kms.Key(this, 'SecretsKey', {
      description: 'TempMail: seals webhook signing secrets (the create route encrypts, the sender decrypts)',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    ({ queue: this.deliveryDeadLetters, alarm: this.deadLetterDepth } = watchedDeadLetters(
      this,
      'DeliveryDeadLetters',
      'AwsSolutions-SQS3[webhook dead letters]',
      'Webhook deliveries are in the dead-letter queue: jobs past the retry schedule (their webhook is disabled; GET /v1/webhooks/{id} says why), jobs the sender failed to run (see its logs), or stream batches the dispatcher failed on',
    ));
    this.deliveries = new sqs.Queue(this, 'Deliveries', {
      // AWS's advice for a queue that feeds a function: at least six times the function's timeout.
      visibilityTimeout: Duration.seconds(6 * SENDER_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deliveryDeadLetters, maxReceiveCount: SENDER_MAX_RECEIVES },
    });

    const common = { table: props.table, bucket: props.bucket, domains: props.domains, logRetention: props.logRetention, webhooks: this };
    this.dispatcher = handlerFunction(this, 'Dispatcher', {
      ...common,
      handler: WEBHOOK_DISPATCHER_HANDLER,
      access: WEBHOOK_DISPATCHER_ACCESS,
      timeoutSeconds: 30,
      service: 'webhook-dispatcher',
    });
    // Only what can become an event reaches (and bills) the function: message inserts, and inbox items
    // deleted by DynamoDB's TTL (not by DELETE /v1/inboxes, which is no expiry).
    consumeStream(this.dispatcher, props.table, this.deliveryDeadLetters, [
      lambda.FilterCriteria.filter({ eventName: lambda.FilterRule.isEqual('INSERT'), dynamodb: { Keys: { sk: { S: lambda.FilterRule.beginsWith(MESSAGE_SK_PREFIX) } } } }),
      lambda.FilterCriteria.filter({
        eventName: lambda.FilterRule.isEqual('REMOVE'),
        userIdentity: { type: lambda.FilterRule.isEqual('Service'), principalId: lambda.FilterRule.isEqual(TTL_PRINCIPAL) },
        dynamodb: { Keys: { sk: { S: lambda.FilterRule.isEqual(INBOX_SK) } } },
      }),
    ]);

    this.sender = handlerFunction(this, 'Sender', {
      ...common,
      handler: WEBHOOK_SENDER_HANDLER,
      access: WEBHOOK_SENDER_ACCESS,
      timeoutSeconds: SENDER_TIMEOUT_SECONDS,
      service: 'webhook-sender',
    });
    this.sender.addEventSource(
      new SqsEventSource(this.deliveries, { batchSize: SENDER_BATCH_SIZE, reportBatchItemFailures: true, maxConcurrency: SENDER_MAX_CONCURRENCY }),
    );
  }
}
