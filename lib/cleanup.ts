/**
 * An inbox's objects go with it on AWS: the table's stream (filtered: REMOVEs of inbox items, whether DynamoDB's TTL
 * or a DELETE removed them) → the cleanup function → its prefix in the bucket listed and deleted
 * (lambdas/cleanup/inbox-objects.ts). TTL deletes items, never objects, and the bucket's lifecycle rule expires
 * objects only after the longest inbox any plan allows (lib/storage.ts): it stays, as the backstop.
 * Batches that keep failing go to a dead-letter queue of their own, watched by an alarm (in the alarm topic's list;
 * lib/dead-letters.ts, shared with the webhook dispatcher).
 */
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INBOX_CLEANUP_ACCESS, INBOX_CLEANUP_HANDLER } from '../lambdas/layout/functions';
import { INBOX_SK } from '../lambdas/layout/table-layout';
import { consumeStream, STREAM_RETRY_ATTEMPTS, watchedDeadLetters } from './dead-letters';
import { handlerFunction } from './functions';

/** An inbox holds at most a few thousand objects (its messages' raw mail, bodies and attachments): one ListObjectsV2
 * page and one delete per object each, well inside a minute. */
export const CLEANUP_TIMEOUT_SECONDS = 60;

export interface InboxCleanupProps {
  table: dynamodb.ITableV2;
  bucket: s3.IBucket;
  domains: string[];
  logRetention?: logs.RetentionDays;
}

export class InboxCleanup extends Construct {
  readonly function: lambda.Function;
  readonly deadLetters: sqs.Queue;
  readonly deadLetterDepth: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: InboxCleanupProps) {
    super(scope, id);
    ({ queue: this.deadLetters, alarm: this.deadLetterDepth } = watchedDeadLetters(
      this,
      'DeadLetters',
      'AwsSolutions-SQS3[cleanup dead letters]',
      `Removed inboxes whose objects the cleanup function failed to delete after ${STREAM_RETRY_ATTEMPTS} retries (see its logs): they stay until the bucket's lifecycle rule expires them`,
    ));
    this.function = handlerFunction(this, 'InboxObjects', {
      table: props.table,
      bucket: props.bucket,
      domains: props.domains,
      logRetention: props.logRetention,
      handler: INBOX_CLEANUP_HANDLER,
      access: INBOX_CLEANUP_ACCESS,
      timeoutSeconds: CLEANUP_TIMEOUT_SECONDS,
      service: 'inbox-cleanup',
    });
    // Only removed inbox items reach (and bill) the function: by TTL or by DELETE alike.
    consumeStream(this.function, props.table, this.deadLetters, [
      lambda.FilterCriteria.filter({ eventName: lambda.FilterRule.isEqual('REMOVE'), dynamodb: { Keys: { sk: { S: lambda.FilterRule.isEqual(INBOX_SK) } } } }),
    ]);
  }
}
