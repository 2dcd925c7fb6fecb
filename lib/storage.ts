/** The one DynamoDB table (TTL, PITR, the account index) and the mail bucket (private, encrypted, TLS-only, lifecycle-expired). */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { REMOVAL_GRACE_SECONDS } from '../lambdas/core/inbox';
import { BASE_PLANS, PLAN_NAMES } from '../lambdas/core/plans';
import { blobKeys } from '../lambdas/core/ports';
import { ACCOUNT_INDEX, GROUP_INDEX, LEGACY_ACCOUNT_INDEX, TTL_ATTRIBUTE } from '../lambdas/layout/table-layout';

/** Objects outlive the longest inbox a plan allows, plus the removal grace and a day of margin. */
export const OBJECT_EXPIRY_DAYS =
  Math.ceil((Math.max(...PLAN_NAMES.map((p) => BASE_PLANS[p].max_ttl_seconds)) + REMOVAL_GRACE_SECONDS) / 86_400) + 1;

/** The two key prefixes that hold mail: raw drops from SES, and everything filed under an inbox. */
export const MAIL_PREFIXES = {
  inbound: blobKeys.INBOUND_PREFIX,
  inboxes: blobKeys.INBOXES_PREFIX,
} as const;

export interface StorageProps {
  /** Keep the table from deletion (default true). */
  deletionProtection?: boolean;
  /** What happens to table and buckets when the stack is deleted (default RETAIN). */
  removalPolicy?: RemovalPolicy;
  /** Days to keep S3 server access logs (default 90). */
  accessLogDays?: number;
  /**
   * Keep the `by_account` index of stacks deployed before `inboxes_by_account` (default false): for the one deploy
   * in between when upgrading such a stack (docs/DEPLOY.md), since CloudFormation adds or removes one index per update.
   */
  legacyAccountIndex?: boolean;
}

export class Storage extends Construct {
  readonly table: dynamodb.TableV2;
  readonly bucket: s3.Bucket;
  readonly accessLogs: s3.Bucket;

  constructor(scope: Construct, id: string, props: StorageProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // Webhooks read message inserts and TTL removals of inboxes from it (lib/webhooks.ts); removals need the old image.
      dynamoStream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy,
      // GET /v1/inboxes: an account's inboxes, newest first; sparse, and only what the list shows (lambdas/layout/table-layout.ts).
      globalSecondaryIndexes: [
        {
          indexName: ACCOUNT_INDEX.name,
          partitionKey: { name: ACCOUNT_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
          sortKey: { name: ACCOUNT_INDEX.sortKey, type: dynamodb.AttributeType.STRING },
          projectionType: dynamodb.ProjectionType.INCLUDE,
          nonKeyAttributes: [...ACCOUNT_INDEX.projected],
        },
        // GET and DELETE /v1/inboxes?group=: one group's inboxes, newest first; sparse too (table-layout.ts). Not in
        // the upgrade's deploy that adds inboxes_by_account: one index per update (docs/DEPLOY.md).
        ...(props.legacyAccountIndex
          ? []
          : [
              {
                indexName: GROUP_INDEX.name,
                partitionKey: { name: GROUP_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
                sortKey: { name: GROUP_INDEX.sortKey, type: dynamodb.AttributeType.STRING },
                projectionType: dynamodb.ProjectionType.INCLUDE,
                nonKeyAttributes: [...GROUP_INDEX.projected],
              },
            ]),
        ...(props.legacyAccountIndex
          ? [
              {
                indexName: LEGACY_ACCOUNT_INDEX.name,
                partitionKey: { name: LEGACY_ACCOUNT_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
                sortKey: { name: LEGACY_ACCOUNT_INDEX.sortKey, type: dynamodb.AttributeType.STRING },
                projectionType: dynamodb.ProjectionType.ALL,
              },
            ]
          : []),
      ],
    });
    this.accessLogs = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(props.accessLogDays ?? 90) }],
      removalPolicy,
    });
    this.bucket = new s3.Bucket(this, 'Mail', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'mail/',
      // The viewer (on the API's origin) reads a raw message from the pre-signed URL GET …/raw?as=url gives it,
      // without the key: a cross-origin GET whose answer the page may read only with these rules. CORS grants no
      // access: every object still needs a valid signature, which only the API hands out.
      cors: [{ allowedMethods: [s3.HttpMethods.GET, s3.HttpMethods.HEAD], allowedOrigins: ['*'], allowedHeaders: ['*'], maxAge: 3_600 }],
      lifecycleRules: [
        { id: 'expire-inbound', prefix: MAIL_PREFIXES.inbound, expiration: Duration.days(OBJECT_EXPIRY_DAYS) },
        { id: 'expire-inboxes', prefix: MAIL_PREFIXES.inboxes, expiration: Duration.days(OBJECT_EXPIRY_DAYS) },
        // Multipart uploads are never used on purpose; anything half-written is garbage.
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy,
    });
  }
}
