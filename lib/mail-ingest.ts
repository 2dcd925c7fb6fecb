/**
 * Receiving mail: SES identities for the domains (with DKIM and MX records when a hosted zone is given), a receipt
 * rule (scan, S3 action, then the ingest Lambda as an Event), async retries ending in a dead-letter queue, and
 * optional activation of the rule set.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as logs from 'aws-cdk-lib/aws-logs';
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
import { acknowledgeNag } from './nag';

/** Lambda retries a failed async invocation this many times before the on-failure destination gets it. */
export const INGEST_RETRY_ATTEMPTS = 2;

export interface MailIngestProps {
  table: dynamodb.ITableV2;
  bucket: s3.Bucket;
  domains: string[];
  /** Public hosted zone that holds the domains: DKIM and MX records are created in it. */
  hostedZone?: { id: string; name: string };
  /** Make this rule set the account's active one (it replaces whatever is active). Default false. */
  activateReceiptRuleSet?: boolean;
  logRetention?: logs.RetentionDays;
}

/**
 * SES's S3 action without the bucket statement aws-ses-actions adds (that one has aws:SourceAccount only); the
 * bucket policy below also pins aws:SourceArn to this rule set.
 */
class ScopedS3Action implements ses.IReceiptRuleAction {
  constructor(private readonly bucket: s3.IBucket, private readonly prefix: string) {}
  bind(): ses.ReceiptRuleActionConfig {
    return { s3Action: { bucketName: this.bucket.bucketName, objectKeyPrefix: this.prefix } };
  }
}

const inZone = (domain: string, zoneName: string): boolean => {
  const zone = zoneName.replace(/\.$/, '').toLowerCase();
  return domain === zone || domain.endsWith(`.${zone}`);
};

export class MailIngest extends Construct {
  readonly ingestFunction: lambda.IFunction;
  readonly deadLetters: sqs.Queue;
  readonly ruleSet: ses.ReceiptRuleSet;
  readonly identities: ses.EmailIdentity[] = [];

  constructor(scope: Construct, id: string, props: MailIngestProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    acknowledgeNag(this.deadLetters, 'AwsSolutions-SQS3');
    this.ingestFunction = handlerFunction(this, 'Ingest', {
      handler: INGEST_HANDLER,
      access: INGEST_ACCESS,
      table: props.table,
      bucket: props.bucket,
      domains: props.domains,
      timeoutSeconds: 60,
      // Parsing a 40 MB message with attachments needs the memory; more memory is also more CPU.
      memoryMb: 1024,
      service: 'ingest',
      logRetention: props.logRetention,
    });
    // Async invocations are retried twice; what still fails lands in the queue for `tempmail replay`.
    new lambda.EventInvokeConfig(this, 'IngestRetries', {
      function: this.ingestFunction,
      retryAttempts: INGEST_RETRY_ATTEMPTS,
      maxEventAge: Duration.hours(6),
      onFailure: new destinations.SqsDestination(this.deadLetters),
    });

    const zone = props.hostedZone
      ? route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: props.hostedZone.id, zoneName: props.hostedZone.name })
      : undefined;
    props.domains.forEach((domain, i) => {
      const identity = new ses.EmailIdentity(this, `Identity${i}`, { identity: ses.Identity.domain(domain) });
      this.identities.push(identity);
      // Records only for domains the zone can hold; others are published by hand (docs/DEPLOY.md).
      if (!zone || !inZone(domain, zone.zoneName)) return;
      // SES's DKIM token names are already fully qualified (<token>._domainkey.<domain>), so a plain record set, as
      // CDK's own EasyDkim does: CnameRecord would append the zone name to them again.
      ([1, 2, 3] as const).forEach((n) => {
        new route53.CfnRecordSet(this, `Dkim${i}-${n}`, {
          hostedZoneId: zone.hostedZoneId,
          name: identity[`dkimDnsTokenName${n}`],
          type: 'CNAME',
          resourceRecords: [identity[`dkimDnsTokenValue${n}`]],
          ttl: '1800',
        });
      });
      new route53.MxRecord(this, `Mx${i}`, {
        zone,
        recordName: `${domain}.`,
        values: [{ priority: 10, hostName: `inbound-smtp.${stack.region}.amazonaws.com` }],
      });
    });

    // SES may write only under the inbound prefix, only for this account and this rule set.
    const ruleSetName = `${stack.stackName}-receipt`;
    props.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowSesReceiptRuleToStoreRawMail',
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
        new ScopedS3Action(props.bucket, blobKeys.INBOUND_PREFIX),
        new actions.Lambda({ function: this.ingestFunction, invocationType: actions.LambdaInvocationType.EVENT }),
      ],
    });
    // SES checks that it may write to the bucket when the rule is created.
    rule.node.addDependency(props.bucket.policy!);

    if (props.activateReceiptRuleSet) {
      const activate = {
        service: 'SES',
        action: 'setActiveReceiptRuleSet',
        parameters: { RuleSetName: ruleSetName },
        physicalResourceId: cr.PhysicalResourceId.of(ruleSetName),
      };
      const activation = new cr.AwsCustomResource(this, 'ActivateRuleSet', {
        onCreate: activate,
        onUpdate: activate,
        // Called with no name, SES deactivates: deleting the stack leaves no dangling active rule set.
        onDelete: { service: 'SES', action: 'setActiveReceiptRuleSet', parameters: {} },
        policy: cr.AwsCustomResourcePolicy.fromStatements([
          // SetActiveReceiptRuleSet supports no resource-level permissions.
          new iam.PolicyStatement({ actions: ['ses:SetActiveReceiptRuleSet'], resources: ['*'] }),
        ]),
        installLatestAwsSdk: false,
      });
      activation.node.addDependency(this.ruleSet);
      acknowledgeNag(activation, 'AwsSolutions-IAM5[Resource::*]');
      // The custom resource's provider is one function per stack, created beside the stack's top-level constructs.
      const provider = stack.node.tryFindChild(`AWS${cr.AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
      if (provider) acknowledgeNag(provider, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]');
    }
  }
}
