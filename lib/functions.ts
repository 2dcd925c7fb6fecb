/** One NodejsFunction for a handler module under lambdas/, with its IAM scoped by the route table's access list. */
import path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { Access } from '../lambdas/core/routes';
import { BUNDLING } from './bundling';
import { actionsFor } from './permissions';

export interface HandlerFunctionProps {
  handler: string;
  access: readonly Access[];
  table: dynamodb.ITableV2;
  bucket: s3.IBucket;
  domains: string[];
  timeoutSeconds?: number;
  memoryMb?: number;
  /** Metrics namespace and service for Powertools. */
  service: string;
}

export function handlerFunction(scope: Construct, id: string, props: HandlerFunctionProps): NodejsFunction {
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
  const fn = new NodejsFunction(scope, id, {
    entry: path.join(__dirname, '..', 'lambdas', `${props.handler}.ts`),
    handler: 'handler',
    runtime: lambda.Runtime.NODEJS_24_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: props.memoryMb ?? 256,
    timeout: Duration.seconds(props.timeoutSeconds ?? 10),
    bundling: BUNDLING,
    logGroup,
    environment: {
      TABLE_NAME: props.table.tableName,
      BUCKET_NAME: props.bucket.bucketName,
      TEMPMAIL_DOMAINS: props.domains.join(','),
      POWERTOOLS_SERVICE_NAME: props.service,
      POWERTOOLS_METRICS_NAMESPACE: 'TempMail',
    },
  });
  // Only the actions the access list names, on this table and bucket only: no grant* helpers, which add more.
  const actions = actionsFor(props.access);
  if (actions.table.length) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: actions.table, resources: [props.table.tableArn] }));
  }
  if (actions.objects.length) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: actions.objects, resources: [props.bucket.arnForObjects('*')] }));
  }
  if (actions.listBucket) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.bucket.bucketArn] }));
  }
  return fn;
}
