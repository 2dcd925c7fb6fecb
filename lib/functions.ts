/** One NodejsFunction for a handler module under lambdas/, with its IAM scoped by the route table's access list. */
import path from 'node:path';
import { CfnElement, Duration, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { Access } from '../lambdas/core/routes';
import { ACCOUNT_INDEX } from '../lambdas/store/table-layout';
import { BUNDLING, LAMBDA_RUNTIME } from './bundling';
import { acknowledgeNag } from './nag';
import { actionsFor } from './permissions';

/** Used when a route states no timeout; API Gateway gives up at 29 s anyway. */
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
  /** Access-Control-Allow-Origin of the function's answers (lambdas/core/cors.ts); default `*`. */
  corsOrigin?: string;
  /** Added to the shared BUNDLING (the viewer function copies its files into its bundle). */
  bundling?: Partial<BundlingOptions>;
  logRetention?: logs.RetentionDays;
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
    bundling: { ...BUNDLING, ...props.bundling },
    logGroup,
    environment: {
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
  if (actions.table.length) {
    // And its account index, by name (GET /v1/inboxes queries it).
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: actions.table, resources: [props.table.tableArn, `${props.table.tableArn}/index/${ACCOUNT_INDEX.name}`] }));
  }
  if (actions.objects.length) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: actions.objects, resources: [props.bucket.arnForObjects('*')] }));
    acknowledgeNag(fn, 'AwsSolutions-IAM5[bucket objects]', `AwsSolutions-IAM5[Resource::<${logicalIdOf(props.bucket)}.Arn>/*]`);
  }
  if (actions.listBucket) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.bucket.bucketArn] }));
  }
  return fn;
}
