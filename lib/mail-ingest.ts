/**
 * Receiving mail: SES identities for the domains, a receipt rule (scan, S3 action, then the ingest Lambda as an Event),
 * async retries ending in a dead-letter queue, and optional activation of the rule set.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as actions from 'aws-cdk-lib/aws-ses-actions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { blobKeys } from '../lambdas/core/ports';
import { INGEST_ACCESS, INGEST_HANDLER } from '../lambdas/core/routes';
import { handlerFunction } from './functions';

export interface MailIngestProps {
  table: dynamodb.ITableV2;
  bucket: s3.Bucket;
  domains: string[];
  hostedZone?: { id: string; name: string };
  /** Make this rule set the account's active one (it replaces whatever is active). Default false. */
  activateReceiptRuleSet?: boolean;
}

export class MailIngest extends Construct {
  readonly ingestFunction: lambda.IFunction;
  readonly deadLetters: sqs.Queue;
  readonly ruleSet: ses.ReceiptRuleSet;

  constructor(scope: Construct, id: string, props: MailIngestProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.ingestFunction = handlerFunction(this, 'Ingest', {
      handler: INGEST_HANDLER,
      access: INGEST_ACCESS,
      table: props.table,
      bucket: props.bucket,
      domains: props.domains,
      timeoutSeconds: 60,
      memoryMb: 1024,
      service: 'ingest',
    });
    // Async invocations are retried twice; what still fails lands in the queue for `tempmail replay`.
    new lambda.EventInvokeConfig(this, 'IngestRetries', {
      function: this.ingestFunction,
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new destinations.SqsDestination(this.deadLetters),
    });

    const hostedZone = props.hostedZone
      ? route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: props.hostedZone.id, zoneName: props.hostedZone.name })
      : undefined;
    props.domains.forEach((domain, i) => {
      new ses.EmailIdentity(this, `Identity${i}`, {
        identity: hostedZone ? ses.Identity.publicHostedZone(hostedZone) : ses.Identity.domain(domain),
      });
      if (hostedZone) {
        new route53.MxRecord(this, `Mx${i}`, {
          zone: hostedZone,
          recordName: domain,
          values: [{ priority: 10, hostName: `inbound-smtp.${stack.region}.amazonaws.com` }],
        });
      }
    });

    // SES may write only to the inbound prefix, only for this account and this rule set.
    const ruleSetName = `${stack.stackName}-receipt`;
    props.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [props.bucket.arnForObjects(`${blobKeys.INBOUND_PREFIX}*`)],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:ses:${stack.region}:${stack.account}:receipt-rule-set/${ruleSetName}:receipt-rule/*` },
        },
      }),
    );
    this.ruleSet = new ses.ReceiptRuleSet(this, 'RuleSet', { receiptRuleSetName: ruleSetName });
    const rule = this.ruleSet.addRule('Inbound', {
      recipients: props.domains,
      scanEnabled: true,
      tlsPolicy: ses.TlsPolicy.OPTIONAL,
      actions: [
        new actions.S3({ bucket: props.bucket, objectKeyPrefix: blobKeys.INBOUND_PREFIX }),
        new actions.Lambda({ function: this.ingestFunction, invocationType: actions.LambdaInvocationType.EVENT }),
      ],
    });
    rule.node.addDependency(props.bucket);

    if (props.activateReceiptRuleSet) {
      new cr.AwsCustomResource(this, 'ActivateRuleSet', {
        onCreate: { service: 'SES', action: 'setActiveReceiptRuleSet', parameters: { RuleSetName: ruleSetName }, physicalResourceId: cr.PhysicalResourceId.of(ruleSetName) },
        onUpdate: { service: 'SES', action: 'setActiveReceiptRuleSet', parameters: { RuleSetName: ruleSetName }, physicalResourceId: cr.PhysicalResourceId.of(ruleSetName) },
        // Called with no name, SES deactivates: deleting the stack leaves no dangling active rule set.
        onDelete: { service: 'SES', action: 'setActiveReceiptRuleSet', parameters: {} },
        policy: cr.AwsCustomResourcePolicy.fromStatements([new iam.PolicyStatement({ actions: ['ses:SetActiveReceiptRuleSet'], resources: ['*'] })]),
        installLatestAwsSdk: false,
      }).node.addDependency(this.ruleSet);
    }

    new cloudwatch.Alarm(this, 'DeadLettersAlarm', {
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      alarmDescription: 'Mail that failed ingest after retries is waiting in the dead-letter queue: run tempmail replay',
    });
    new cloudwatch.Alarm(this, 'IngestErrorsAlarm', {
      metric: this.ingestFunction.metricErrors({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      alarmDescription: 'The ingest function failed (it will be retried)',
    });
  }
}
