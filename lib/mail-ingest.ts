/**
 * Receiving mail: SES identities for the domains (with DKIM and MX records when a hosted zone is given), a receipt
 * rule (scan, S3 action, then the ingest Lambda as an Event), async retries ending in a dead-letter queue, and a
 * custom resource that activates the rule set when asked and deactivates it on deletion only while it is active.
 */
import { Annotations, CfnElement, CfnRule, CustomResource, Duration, Fn, Stack, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { blobKeys } from '../lambdas/core/ports';
import { INGEST_ACCESS, INGEST_HANDLER } from '../lambdas/layout/functions';
import { BUNDLING, LAMBDA_RUNTIME } from './bundling';
import { handlerEntry, handlerFunction } from './functions';
import { acknowledgeNag } from './nag';

/** Lambda retries a failed async invocation this many times before the on-failure destination gets it. */
export const INGEST_RETRY_ATTEMPTS = 2;
/**
 * How long a dead letter waits for `tempmail replay`: SQS keeps a message at most 14 days, so this is the replay
 * window (docs/DEPLOY.md §7); the alarms tell the operator at once and again when half of it is gone.
 */
export const DEAD_LETTER_RETENTION_DAYS = 14;
/**
 * Ingest's timeout: parsing a 40 MB mail, plus putMessage's TransactionConflict retries under a burst for one
 * account (up to 66 s of backoff, lambdas/store/dynamo-put-message.ts).
 */
export const INGEST_TIMEOUT_SECONDS = 120;
/**
 * Regions where SES receives mail ("Email receiving endpoints", AWS General Reference, early 2024). A deployment
 * elsewhere fails before anything is created; if AWS has added a region since, pass it in `sesReceivingRegions`.
 */
export const SES_RECEIVING_REGIONS = [
  'us-east-1', 'us-east-2', 'us-west-2', 'ca-central-1', 'eu-west-1', 'eu-west-2', 'eu-central-1',
  'ap-southeast-1', 'ap-southeast-2', 'ap-southeast-3', 'ap-northeast-1',
] as const;
/** The one line a synth prints for a region where SES does not receive mail. */
export const sesRegionRefusal = (region: string, regions: readonly string[]) => `SES does not receive mail in ${region}; deploy to one of ${regions.join(', ')}`;
/** The deploy-time handler that activates and deactivates the rule set. */
export const RULE_SET_HANDLER = 'deploy/receipt-rule-set';

export interface MailIngestProps {
  table: dynamodb.ITableV2;
  bucket: s3.Bucket;
  domains: string[];
  /** Public hosted zone that holds the domains: DKIM and MX records are created in it. */
  hostedZone?: { id: string; name: string };
  /** Make this rule set the account's active one (it replaces whatever is active). Default false. */
  activateReceiptRuleSet?: boolean;
  logRetention?: logs.RetentionDays;
  /** Reserved concurrency of the ingest function (0: none). */
  reservedConcurrency: number;
  /** Regions the stack may be deployed to. Default SES_RECEIVING_REGIONS. */
  sesReceivingRegions?: readonly string[];
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

/**
 * SES's Lambda action with an invoke permission pinned to this rule set (aws:SourceArn) as well as the account:
 * aws-ses-actions' own permission names the account only.
 */
class ScopedLambdaAction implements ses.IReceiptRuleAction {
  constructor(private readonly fn: lambda.IFunction, private readonly ruleArns: string) {}
  bind(rule: ses.IReceiptRule): ses.ReceiptRuleActionConfig {
    const permission = new lambda.CfnPermission(rule as unknown as Construct, 'AllowSesInvoke', {
      action: 'lambda:InvokeFunction',
      functionName: this.fn.functionArn,
      principal: 'ses.amazonaws.com',
      sourceAccount: Stack.of(rule).account,
      sourceArn: this.ruleArns,
    });
    // SES checks that it may invoke the function when the rule is created.
    rule.node.addDependency(permission);
    return { lambdaAction: { functionArn: this.fn.functionArn, invocationType: 'Event' } };
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
    const regions = props.sesReceivingRegions ?? SES_RECEIVING_REGIONS;
    // TempMailStack refuses a known region before building (sesRegionRefusal, an error annotation); built alone,
    // this construct refuses it the same way.
    if (!Token.isUnresolved(stack.region) && !regions.includes(stack.region)) Annotations.of(this).addError(sesRegionRefusal(stack.region, regions));
    // The stack is environment-agnostic, so the region is checked again when CloudFormation knows it, before any
    // resource is created.
    new CfnRule(this, 'SesReceivingRegion', {
      assertions: [
        {
          assert: Fn.conditionContains([...regions], stack.region),
          assertDescription: `SES does not receive mail in this region; deploy TempMail to one of ${regions.join(', ')} (docs/DEPLOY.md)`,
        },
      ],
    });
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(DEAD_LETTER_RETENTION_DAYS),
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
      timeoutSeconds: INGEST_TIMEOUT_SECONDS,
      // Parsing a 40 MB message with attachments needs the memory; more memory is also more CPU.
      memoryMb: 1024,
      service: 'ingest',
      logRetention: props.logRetention,
      // Reserved: long polls cannot starve mail. Past it, Lambda keeps throttled SES events and retries them for
      // up to maxEventAge, so a burst is delayed, not lost.
      reservedConcurrency: props.reservedConcurrency,
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
    const ruleArns = `arn:${stack.partition}:ses:${stack.region}:${stack.account}:receipt-rule-set/${ruleSetName}:receipt-rule/*`;
    props.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowSesReceiptRuleToStoreRawMail',
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [props.bucket.arnForObjects(`${blobKeys.INBOUND_PREFIX}*`)],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': ruleArns },
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
        new ScopedLambdaAction(this.ingestFunction, ruleArns),
      ],
    });
    // SES checks that it may write to the bucket when the rule is created.
    rule.node.addDependency(props.bucket.policy!);

    // Always present, so that deleting the stack deactivates our set if it is active, however it was activated.
    const ruleSetLogs = new logs.LogGroup(this, 'RuleSetActivationLogs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH });
    const onEvent = new NodejsFunction(this, 'RuleSetActivationHandler', {
      entry: handlerEntry(RULE_SET_HANDLER),
      handler: 'handler',
      runtime: LAMBDA_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      timeout: Duration.seconds(30),
      bundling: BUNDLING,
      logGroup: ruleSetLogs,
    });
    // Neither action supports resource-level permissions.
    onEvent.addToRolePolicy(new iam.PolicyStatement({ actions: ['ses:DescribeActiveReceiptRuleSet', 'ses:SetActiveReceiptRuleSet'], resources: ['*'] }));
    acknowledgeNag(onEvent, 'AwsSolutions-IAM5[Resource::*]');
    acknowledgeNag(onEvent, 'AwsSolutions-L1');
    acknowledgeNag(onEvent, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]');
    const provider = new cr.Provider(this, 'RuleSetActivationProvider', { onEventHandler: onEvent, logGroup: ruleSetLogs });
    acknowledgeNag(provider, 'AwsSolutions-L1');
    acknowledgeNag(provider, 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]');
    const handlerId = stack.resolve((onEvent.node.defaultChild as CfnElement).logicalId) as string;
    acknowledgeNag(provider, 'AwsSolutions-IAM5[provider invoke]', `AwsSolutions-IAM5[Resource::<${handlerId}.Arn>:*]`);
    const activation = new CustomResource(this, 'RuleSetActivation', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::ReceiptRuleSetActivation',
      properties: { RuleSetName: ruleSetName, Activate: String(props.activateReceiptRuleSet ?? false) },
    });
    // Created after the set (and its rule), deleted before them: SES refuses to delete the active set.
    activation.node.addDependency(rule);
  }
}
