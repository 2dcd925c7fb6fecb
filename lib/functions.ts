/** One NodejsFunction for a handler module under lambdas/, with its IAM scoped by the route table's access list. */
import path from 'node:path';
import { CfnElement, Duration, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEPLOYED_STORE, type Access } from '../lambdas/layout/functions';
import { ACCOUNT_INDEX, GROUP_INDEX } from '../lambdas/layout/table-layout';
import { BUNDLING, LAMBDA_RUNTIME } from './bundling';
import { acknowledgeNag } from './nag';
import { actionsFor } from './permissions';

/** Used when a route states no timeout (routes may state up to MAX_ROUTE_TIMEOUT_SECONDS). */
export const DEFAULT_TIMEOUT_SECONDS = 10;
export const METRICS_NAMESPACE = 'TempMail';

/** Where a handler module's source lives; scripts/bundle-lambdas.ts resolves entries the same way. */
export const handlerEntry = (handler: string): string => path.join(__dirname, '..', 'lambdas', `${handler}.ts`);

export interface HandlerFunctionProps {
  /** Module under lambdas/ without extension, e.g. `api/get-inbox`. */
  handler: string;
  access: readonly Access[];
  table: dynamodb.ITableV2;
  bucket: s3.IBucket;
  domains: string[];
  timeoutSeconds?: number;
  memoryMb?: number;
  /** Powertools service name (logs and metrics dimension). */
  service: string;
  /** Reserved concurrency: executions kept for this function and its ceiling. Undefined or 0: none. */
  reservedConcurrency?: number;
  /** Access-Control-Allow-Origin of the function's answers (lambdas/contract/cors.ts); default `*`. */
  corsOrigin?: string;
  /** Added to the shared BUNDLING (the viewer function copies its files into its bundle). */
  bundling?: Partial<BundlingOptions>;
  logRetention?: logs.RetentionDays;
  /** The webhook key and queues (lib/webhooks.ts), for functions whose access list names them. */
  webhooks?: WebhookResources;
}

export interface WebhookResources {
  secretsKey: kms.IKey;
  deliveries: sqs.IQueue;
  deliveryDeadLetters: sqs.IQueue;
}

/** The bucket's CloudFormation logical id, as cdk-nag names it in a finding. */
function logicalIdOf(bucket: s3.IBucket): string {
  const cfn = bucket.node.defaultChild as CfnElement | undefined;
  if (!cfn) throw new Error('an imported bucket has no logical id; grant object actions on a bucket this stack owns');
  return Stack.of(bucket).resolve(cfn.logicalId) as string;
}

export function handlerFunction(scope: Construct, id: string, props: HandlerFunctionProps): NodejsFunction {
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH });
  const fn = new NodejsFunction(scope, id, {
    entry: handlerEntry(props.handler),
    handler: 'handler',
    runtime: LAMBDA_RUNTIME,
    architecture: lambda.Architecture.ARM_64,
    memorySize: props.memoryMb ?? 256,
    timeout: Duration.seconds(props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
    reservedConcurrentExecutions: props.reservedConcurrency || undefined,
    bundling: { ...BUNDLING, ...props.bundling },
    logGroup,
    environment: {
      TEMPMAIL_STORE: DEPLOYED_STORE,
      TABLE_NAME: props.table.tableName,
      BUCKET_NAME: props.bucket.bucketName,
      TEMPMAIL_DOMAINS: props.domains.join(','),
      POWERTOOLS_SERVICE_NAME: props.service,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      ...(props.corsOrigin ? { TEMPMAIL_CORS_ORIGIN: props.corsOrigin } : {}),
    },
  });
  acknowledgeNag(fn, 'AwsSolutions-L1');
  acknowledgeNag(fn, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]');
  // Only the actions the access list names, on this table and bucket only: no grant* helpers, which add more.
  const actions = actionsFor(props.access);
  if (actions.table.length) fn.addToRolePolicy(new iam.PolicyStatement({ actions: actions.table, resources: [props.table.tableArn] }));
  // The account index, by name, only to what queries it (listing and counting an account's inboxes).
  if (actions.accountIndex.length) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: actions.accountIndex, resources: [`${props.table.tableArn}/index/${ACCOUNT_INDEX.name}`] }));
  }
  // The group index likewise, only to what lists or deletes a group's inboxes.
  if (actions.groupIndex.length) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: actions.groupIndex, resources: [`${props.table.tableArn}/index/${GROUP_INDEX.name}`] }));
  }
  for (const [pattern, objectActions] of Object.entries(actions.objects)) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: objectActions, resources: [props.bucket.arnForObjects(pattern)] }));
    acknowledgeNag(fn, 'AwsSolutions-IAM5[bucket objects]', `AwsSolutions-IAM5[Resource::<${logicalIdOf(props.bucket)}.Arn>/${pattern}]`);
  }
  if (actions.listPrefixes.length) {
    // Listing only under those prefixes. Without an unconditional ListBucket S3 answers a missing key with 403
    // rather than 404; S3BlobStore reads that as missing (the role may read every key under the prefix).
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': actions.listPrefixes.map((p) => `${p}*`) } },
      }),
    );
  }
  // Webhooks: the key and the queues, each only to the functions that name it, and named to those only.
  const webhookTargets = [
    [actions.key, 'secretsKey', 'WEBHOOK_KEY_ID', (r: WebhookResources) => [r.secretsKey.keyArn, r.secretsKey.keyArn]],
    [actions.queue, 'deliveries', 'WEBHOOK_QUEUE_URL', (r: WebhookResources) => [r.deliveries.queueArn, r.deliveries.queueUrl]],
    [actions.deadLetters, 'deliveryDeadLetters', 'WEBHOOK_DLQ_URL', (r: WebhookResources) => [r.deliveryDeadLetters.queueArn, r.deliveryDeadLetters.queueUrl]],
  ] as const;
  for (const [granted, what, variable, arnAndName] of webhookTargets) {
    if (granted.length === 0) continue;
    if (!props.webhooks) throw new Error(`${props.handler} needs the webhook ${what}: pass webhooks to handlerFunction`);
    const [arn, name] = arnAndName(props.webhooks);
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...granted], resources: [arn] }));
    fn.addEnvironment(variable, name);
  }
  return fn;
}
