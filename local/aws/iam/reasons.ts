/**
 * Why a grant no scenario used is still needed: the written reason for each entry the unused-grant report may keep.
 * A grant belongs here only when the call is made with the function's role by something other than our code (the
 * Lambda service, CDK's provider framework), so no run of our code can show it. Anything else a run leaves unused is
 * excess, to remove from lib/ rather than explain here.
 *
 * Functions and resources are matched by the logical ids CDK gives them (each local name contains its resource's
 * logical id, as CloudFormation's generated names do), never by local names, so the table holds for any runner.
 */
import type { UnusedGrant } from './evidence';

export interface GrantReason {
  /** The function's logical id. */
  functionLogicalId: RegExp;
  /** The action as granted, e.g. `sqs:ReceiveMessage`. */
  actions: readonly string[];
  /** The granted resource (pattern), when it matters which. */
  resource?: RegExp;
  reason: string;
}

const fn = (constructId: string) => new RegExp(`^TempMail(?:Api|Mail|Webhooks)?${constructId}[0-9A-F]{8}$`);
const anyFunction = /^TempMail\w+$/;

export const UNUSED_GRANT_REASONS: readonly GrantReason[] = [
  {
    functionLogicalId: anyFunction,
    actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
    resource: /^\*$/,
    reason:
      "AWSLambdaBasicExecutionRole, which CDK attaches to every function: the Lambda service writes the function's output to CloudWatch Logs with the role. No code of ours calls CloudWatch Logs; locally the output goes to the runner's log.",
  },
  {
    functionLogicalId: fn('Dispatcher'),
    actions: ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
    resource: /\/stream\//,
    reason: "The table stream's event-source mapping: Lambda's poller reads the stream with the function's role and invokes the function with the records; the code never reads the stream.",
  },
  {
    functionLogicalId: fn('Dispatcher'),
    actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    resource: /DeliveryDeadLetters/i,
    reason: "The stream event-source mapping's on-failure destination: after the retries Lambda sends the failed batch's description there with the function's role; the code never sends to it.",
  },
  {
    functionLogicalId: fn('Sender'),
    actions: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
    resource: /Deliveries(?!.*DeadLetters)/i,
    reason: "The delivery queue's event-source mapping: Lambda's poller receives, hides and deletes the messages with the function's role and invokes the function with the batch; the code only reports failed items.",
  },
  {
    functionLogicalId: fn('Ingest'),
    actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    resource: /(?<!Delivery)DeadLetters/i,
    reason: "The asynchronous invocation's on-failure destination (EventInvokeConfig): Lambda sends an SES event that failed every retry there with the function's role; the code never sends to it.",
  },
  {
    functionLogicalId: /^TempMailRuleSetActivationProviderframeworkonEvent[0-9A-F]{8}$/,
    actions: ['lambda:InvokeFunction', 'lambda:GetFunction'],
    reason: "CDK's custom-resource provider framework (its code, not ours): it invokes the rule-set handler and waits for it to be active.",
  },
];

export interface ExplainedGrant extends UnusedGrant {
  reason: string;
}

/** The unused grants with a written reason, and those without one (excess: the report's failures). */
export function explainUnused(unused: readonly UnusedGrant[], reasons: readonly GrantReason[] = UNUSED_GRANT_REASONS): { explained: ExplainedGrant[]; unexplained: UnusedGrant[] } {
  const explained: ExplainedGrant[] = [];
  const unexplained: UnusedGrant[] = [];
  for (const grant of unused) {
    const why = reasons.find((r) => r.functionLogicalId.test(grant.functionLogicalId) && r.actions.includes(grant.action) && (!r.resource || r.resource.test(grant.resource)));
    if (why) explained.push({ ...grant, reason: why.reason });
    else unexplained.push(grant);
  }
  return { explained, unexplained };
}
