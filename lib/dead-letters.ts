/**
 * What the table's stream consumers share (the webhook dispatcher, lib/webhooks.ts; the inbox cleanup,
 * lib/cleanup.ts): a dead-letter queue for the batches they keep failing on, an alarm on its depth (in the alarm
 * topic's list, lib/observability.ts), and the stream mapping's retry settings. Stated once, so that both consumers
 * keep the same retry and alarm rules; each keeps its own queue, filter and alarm text.
 *
 * Functions, not a construct: the queue and the alarm keep the logical ids they had under each consumer's construct
 * (a new construct level would rename them, and CloudFormation would replace a deployed queue with its letters).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledgeNag, type NagRule } from './nag';

/** Retries of a failing stream batch (halved each time) before it goes to the dead-letter queue. */
export const STREAM_RETRY_ATTEMPTS = 10;

export interface WatchedDeadLetters {
  queue: sqs.Queue;
  /** Raised by one letter in the queue: someone has to look (the description says where). */
  alarm: cloudwatch.Alarm;
}

/**
 * A dead-letter queue (`queueId`, kept 14 days, SQS-managed encryption, TLS only) and its depth alarm
 * (`DeadLetterDepth`), both in `scope`. `nag`: the SQS3 acknowledgement (a dead-letter queue has none of its own).
 */
export function watchedDeadLetters(scope: Construct, queueId: string, nag: NagRule, alarmDescription: string): WatchedDeadLetters {
  const queue = new sqs.Queue(scope, queueId, {
    retentionPeriod: Duration.days(14),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  acknowledgeNag(queue, nag, 'AwsSolutions-SQS3');
  const alarm = new cloudwatch.Alarm(scope, 'DeadLetterDepth', {
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    alarmDescription,
  });
  return { queue, alarm };
}

/**
 * The table's stream into `fn`, from now on, 100 records a batch, passing only what `filters` match (and bill): a
 * failing batch is bisected and retried, the function reports the records that failed, and a batch still failing
 * goes to `deadLetters`.
 */
export function consumeStream(fn: lambda.Function, table: dynamodb.ITableV2, deadLetters: sqs.IQueue, filters: Record<string, unknown>[]): void {
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: 100,
      bisectBatchOnError: true,
      retryAttempts: STREAM_RETRY_ATTEMPTS,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(deadLetters),
      filters,
    }),
  );
}
