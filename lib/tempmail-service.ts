/** TempMailService: the whole service as one construct, for this repository's stack or a customer's own. */
import { CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PAID_PLANS } from '../lambdas/core/plans';
import { Api } from './api';
import { InboxCleanup } from './cleanup';
import { MailIngest } from './mail-ingest';
import { Observability } from './observability';
import { OUTPUTS } from './outputs';
import { Storage } from './storage';
import { Webhooks } from './webhooks';

export interface TempMailServiceProps {
  /** The domains inboxes can use (the first is the default); mail for them is received by SES. */
  domains: string[];
  /** A public hosted zone holding the domains: DKIM and MX records are created in it (no lookup: id and name). */
  hostedZone?: { id: string; name: string };
  /** Make this service's receipt rule set the account's active one. Default false: activation replaces any other. */
  activateReceiptRuleSet?: boolean;
  /** DynamoDB deletion protection. Default true. */
  tableDeletionProtection?: boolean;
  /** Keep the table's old `by_account` index: only for upgrading a stack deployed with it (docs/DEPLOY.md). Default false. */
  legacyAccountIndex?: boolean;
  /** What happens to the table and the buckets when the stack is deleted. Default RETAIN. */
  removalPolicy?: RemovalPolicy;
  /** Retention of function and access logs. Default one month (functions), three months (API access log). */
  logRetention?: logs.RetentionDays;
  /** Access-Control-Allow-Origin of the API: `*` (default; keys travel in a header, never in cookies) or one origin. */
  corsOrigin?: string;
  /** DNS servers (`ip` or `ip:port`) the mail checks' authentication section asks; default: the resolver Lambda gives. */
  checkDns?: readonly string[];
  /** Put the stack outputs the `tempmail` CLI reads on the enclosing stack. Default true. */
  outputs?: boolean;
  /** Subscribed to the alarm topic by e-mail (SNS sends a confirmation link first). */
  alarmEmail?: string;
  /** Reserved concurrency (0: none); docs/DEPLOY.md says how to check the account's quota. Default DEFAULT_CONCURRENCY. */
  concurrency?: Partial<Concurrency>;
  /** Regions the service may be deployed to (SES receiving). Default SES_RECEIVING_REGIONS. */
  sesReceivingRegions?: readonly string[];
}

export interface Concurrency {
  /** Kept for mail ingest: long polls cannot starve it. */
  ingest: number;
  /** Kept for the key check every request needs, and its ceiling: 0 (none) by default, see lib/api.ts STAGE_THROTTLE. */
  authorizer: number;
  /** The ceiling of each wait endpoint's function (GET and POST …/messages/wait): each call holds an execution up to 25 s. */
  longPoll: number;
}

/**
 * Reservations need the account's concurrency quota to keep 100 unreserved on top of their sum: 310 here (two wait functions), against a
 * default quota of 1,000 (new accounts may start lower). 10 ingest executions take ~30 mails/s at 300 ms each.
 */
export const DEFAULT_CONCURRENCY: Concurrency = { ingest: 10, authorizer: 0, longPoll: 100 };

export { OUTPUTS };

export class TempMailService extends Construct {
  readonly storage: Storage;
  readonly api: Api;
  readonly mail: MailIngest;
  readonly observability: Observability;
  readonly webhooks: Webhooks;
  readonly cleanup: InboxCleanup;

  constructor(scope: Construct, id: string, props: TempMailServiceProps) {
    super(scope, id);
    if (props.domains.length === 0) throw new Error('TempMailService needs at least one domain');
    const domains = props.domains.map((d) => d.trim().toLowerCase());
    this.storage = new Storage(this, 'Storage', {
      deletionProtection: props.tableDeletionProtection,
      removalPolicy: props.removalPolicy,
      legacyAccountIndex: props.legacyAccountIndex,
    });
    const data = { table: this.storage.table, bucket: this.storage.bucket, domains, logRetention: props.logRetention };
    const concurrency = { ...DEFAULT_CONCURRENCY, ...props.concurrency };
    // Before the API: its webhook routes are granted the key and the delivery queue.
    this.webhooks = new Webhooks(this, 'Webhooks', { ...data, removalPolicy: props.removalPolicy });
    this.api = new Api(this, 'Api', { ...data, concurrency, webhooks: this.webhooks, corsOrigin: props.corsOrigin, checkDns: props.checkDns });
    // Payloads link to the full message in the API.
    this.webhooks.dispatcher.addEnvironment('TEMPMAIL_API_URL', this.api.restApi.url);
    this.mail = new MailIngest(this, 'Mail', {
      ...data,
      hostedZone: props.hostedZone,
      activateReceiptRuleSet: props.activateReceiptRuleSet,
      reservedConcurrency: concurrency.ingest,
      sesReceivingRegions: props.sesReceivingRegions,
    });
    this.cleanup = new InboxCleanup(this, 'Cleanup', data);
    this.observability = new Observability(this, 'Observability', {
      restApi: this.api.restApi,
      ingestFunction: this.mail.ingestFunction,
      deadLetters: this.mail.deadLetters,
      alarmEmail: props.alarmEmail,
      moreAlarms: [this.webhooks.deadLetterDepth, this.cleanup.deadLetterDepth],
    });

    if (props.outputs === false) return;
    // What `tempmail keys` and `tempmail replay` read to find their way around a deployed stack.
    const stack = Stack.of(this);
    const stageUrl = `https://${this.api.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${this.api.restApi.deploymentStage.stageName}`;
    new CfnOutput(stack, OUTPUTS.apiUrl, { value: stageUrl, description: 'Base URL without /v1 (TEMPMAIL_API_URL)' });
    new CfnOutput(stack, OUTPUTS.restApiId, { value: this.api.restApi.restApiId });
    new CfnOutput(stack, OUTPUTS.tableName, { value: this.storage.table.tableName });
    new CfnOutput(stack, OUTPUTS.bucketName, { value: this.storage.bucket.bucketName });
    new CfnOutput(stack, OUTPUTS.deadLetterQueueUrl, { value: this.mail.deadLetters.queueUrl });
    new CfnOutput(stack, OUTPUTS.ingestFunctionName, { value: this.mail.ingestFunction.functionName });
    new CfnOutput(stack, OUTPUTS.alarmTopicArn, { value: this.observability.alarmTopic.topicArn, description: 'Every alarm notifies this topic' });
    for (const plan of PAID_PLANS) {
      new CfnOutput(stack, OUTPUTS.usagePlanId(plan), { value: this.api.usagePlans[plan]!.usagePlanId });
    }
  }
}
