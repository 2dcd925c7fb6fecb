/** TempMailService: the whole service as one construct, for this repository's stack or a customer's own. */
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { PAID_PLANS } from '../lambdas/core/plans';
import { Api } from './api';
import { MailIngest } from './mail-ingest';
import { Storage } from './storage';

export interface TempMailServiceProps {
  /** The three domains; the first is the default. */
  domains: string[];
  hostedZone?: { id: string; name: string };
  activateReceiptRuleSet?: boolean;
  tableDeletionProtection?: boolean;
  removalPolicy?: RemovalPolicy;
}

export class TempMailService extends Construct {
  readonly storage: Storage;
  readonly api: Api;
  readonly mail: MailIngest;

  constructor(scope: Construct, id: string, props: TempMailServiceProps) {
    super(scope, id);
    if (props.domains.length === 0) throw new Error('TempMailService needs at least one domain');
    const domains = props.domains.map((d) => d.toLowerCase());
    this.storage = new Storage(this, 'Storage', { deletionProtection: props.tableDeletionProtection, removalPolicy: props.removalPolicy });
    this.api = new Api(this, 'Api', { table: this.storage.table, bucket: this.storage.bucket, domains });
    this.mail = new MailIngest(this, 'Mail', {
      table: this.storage.table,
      bucket: this.storage.bucket,
      domains,
      hostedZone: props.hostedZone,
      activateReceiptRuleSet: props.activateReceiptRuleSet,
    });
    new cloudwatch.Alarm(this, 'Api5xxAlarm', {
      metric: this.api.restApi.metricServerError({ period: Duration.minutes(5) }),
      threshold: 5,
      evaluationPeriods: 1,
      alarmDescription: 'The API answered 5xx',
    });

    // What `tempmail keys` and `tempmail replay` read to find their way around a deployed stack.
    const stack = Stack.of(this);
    new CfnOutput(stack, 'ApiUrl', { value: `${this.api.restApi.url}v1` });
    new CfnOutput(stack, 'RestApiId', { value: this.api.restApi.restApiId });
    new CfnOutput(stack, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(stack, 'BucketName', { value: this.storage.bucket.bucketName });
    new CfnOutput(stack, 'DeadLetterQueueUrl', { value: this.mail.deadLetters.queueUrl });
    new CfnOutput(stack, 'IngestFunctionName', { value: this.mail.ingestFunction.functionName });
    for (const plan of PAID_PLANS) {
      new CfnOutput(stack, `UsagePlanId${plan[0].toUpperCase()}${plan.slice(1)}`, { value: this.api.usagePlans[plan]!.usagePlanId });
    }
  }
}
