/**
 * Why a grant no scenario used is still needed: the written reason for each entry the unused-grant report may keep.
 * A grant belongs here only when the call is made with the function's role by something other than our code (the
 * Lambda service, CDK's provider framework), so no run of our code can show it. Anything else a run leaves unused is
 * excess, to remove from lib/ rather than explain here.
 *
 * Most such grants are read off the template (templateReasons: what makes the Lambda service act with the role),
 * each tied to its exact function and resource, so a reason cannot cover a grant it was not written for.
 */
import { unusedGrantsOf, type EvidenceSnapshot, type UnusedGrant } from './evidence';
import { functionIds, identityPolicies, resolveIntrinsics, type CfnTemplate, type PolicyStatement, type Resolver } from './template';

export interface GrantReason {
  /** The function's logical id (exactly, or a pattern). */
  functionLogicalId: string | RegExp;
  /** The action as granted, e.g. `sqs:ReceiveMessage`. */
  actions: readonly string[];
  /** The granted resource (exactly, or a pattern), when it matters which. */
  resource?: string | RegExp;
  reason: string;
}

/** Reasons that hold whatever the template: AWS's managed policy, CDK's own provider framework. */
export const UNUSED_GRANT_REASONS: readonly GrantReason[] = [
  {
    functionLogicalId: /^\w+$/,
    actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
    resource: '*',
    reason:
      "AWSLambdaBasicExecutionRole, which CDK attaches to every function: the Lambda service writes the function's output to CloudWatch Logs with the role. No code of ours calls CloudWatch Logs; locally the output goes to the runner's log.",
  },
  {
    functionLogicalId: /ProviderframeworkonEvent[0-9A-F]{8}$/,
    actions: ['lambda:InvokeFunction', 'lambda:GetFunction'],
    reason: "CDK's custom-resource provider framework (its code, not ours): it invokes the custom resource's handler and waits for it to be active.",
  },
];

/**
 * Grants our code uses only on a path the scenarios against the template form cannot reach, each named with where
 * that path is and which test runs it. A second kind of reason, kept apart and short: each entry must name its code
 * path exactly; anything else a run leaves unused is excess.
 */
export const UNREACHED_PATH_REASONS: readonly GrantReason[] = [
  {
    functionLogicalId: /Ingest[0-9A-F]{8}$/,
    actions: ['dynamodb:Query'],
    resource: /:table\/[^/]+$/,
    reason:
      "The per-inbox daily cap (lambdas/usecases/ingest.ts inboxDayCount queries the inbox's messages of the day) applies only to a plan with emails_per_inbox_per_day, which none of the base plans has; a deployer sets one through the plans. test/unit/usecases.test.ts runs that path.",
  },
  {
    functionLogicalId: /Ingest[0-9A-F]{8}$/,
    actions: ['s3:DeleteObject'],
    resource: /\/inboxes\/\*$/,
    reason:
      "Undoing a message's objects (ingest.ts deletePrefix): when it cannot be stored in full and is stored degraded, or is refused (quota, inbox gone) after its upload; no mail of the scenarios fails that way. test/unit/ingest-failures.test.ts runs it.",
  },
  {
    functionLogicalId: /RuleSetActivationHandler[0-9A-F]{8}$/,
    actions: ['ses:SetActiveReceiptRuleSet'],
    resource: '*',
    reason:
      'Activating the receipt rule set (tempmail:activateReceiptRuleSet=true), or deactivating it on Delete while it is the active one; the template run here has the flag off and no set active. test/infra/stack.test.ts runs the bundle through Create, Update and Delete with the flag on and off.',
  },
  {
    functionLogicalId: /WebhooksSender[0-9A-F]{8}$/,
    actions: ['sqs:SendMessage'],
    resource: /DeliveryDeadLetters/,
    reason:
      "A delivery past the whole retry schedule (lambdas/usecases/webhooks.ts: queue.deadLetter, after the last of its attempts over about 26 hours) goes to the dead-letter queue; no scenario waits that long. webhooks.test.ts runs it on the local forms with a schedule of seconds.",
  },
];

/** The actions CDK grants a function for each thing the Lambda service does with its role. */
const STREAM_POLLER = ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];
const QUEUE_POLLER = ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
const SQS_DESTINATION = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];

/**
 * Reasons the template itself gives: the grants CDK adds for what the Lambda service does with a function's role,
 * read from the resources that make it do so, each tied to its exact function and resource:
 * an event-source mapping's poller (stream or queue) and its on-failure destination, an asynchronous invocation's
 * destinations (EventInvokeConfig) and a function's dead-letter queue.
 */
export function templateReasons(template: CfnTemplate, resolve: Resolver): GrantReason[] {
  const reasons: GrantReason[] = [];
  const arnOf = (v: unknown) => String(resolveIntrinsics(v, resolve, template));
  const fnOf = (v: unknown) => (v as { Ref?: string })?.Ref ?? String(v);
  for (const r of Object.values(template.Resources)) {
    const p = r.Properties ?? {};
    if (r.Type === 'AWS::Lambda::EventSourceMapping' && p.EventSourceArn) {
      const functionLogicalId = fnOf(p.FunctionName);
      const source = arnOf(p.EventSourceArn);
      if (source.includes(':dynamodb:'))
        reasons.push({ functionLogicalId, actions: STREAM_POLLER, resource: source, reason: "The stream's event-source mapping: Lambda's poller reads the stream with the function's role and invokes the function with the records; the code never reads the stream." });
      else if (source.includes(':sqs:'))
        reasons.push({ functionLogicalId, actions: QUEUE_POLLER, resource: source, reason: "The queue's event-source mapping: Lambda's poller receives, hides and deletes the messages with the function's role and invokes the function with the batch; the code only reports failed items." });
      const onFailure = p.DestinationConfig?.OnFailure?.Destination;
      if (onFailure)
        reasons.push({ functionLogicalId, actions: SQS_DESTINATION, resource: arnOf(onFailure), reason: "The event-source mapping's on-failure destination: after its retries Lambda sends the failed batch's description there with the function's role; the code never sends to it." });
    }
    if (r.Type === 'AWS::Lambda::EventInvokeConfig') {
      for (const kind of ['OnFailure', 'OnSuccess'] as const) {
        const destination = p.DestinationConfig?.[kind]?.Destination;
        if (destination)
          reasons.push({ functionLogicalId: fnOf(p.FunctionName), actions: SQS_DESTINATION, resource: arnOf(destination), reason: `The asynchronous invocation's ${kind === 'OnFailure' ? 'on-failure' : 'on-success'} destination (EventInvokeConfig): Lambda sends the event there with the function's role${kind === 'OnFailure' ? ' once every retry failed' : ''}; the code never sends to it.` });
      }
    }
  }
  // S3 answers a GetObject of a missing key with 404 only to a caller that may list the bucket (403 otherwise): a
  // function that reads a bucket's objects holds s3:ListBucket on it for that implicit check, which S3 makes itself.
  for (const fn of functionIds(template)) {
    const readBuckets = new Set<string>();
    for (const { policy } of identityPolicies(template, fn, resolve)) {
      for (const st of policy.Statement as PolicyStatement[]) {
        if (st.Effect !== 'Allow' || !([] as string[]).concat(st.Action ?? []).includes('s3:GetObject')) continue;
        for (const resource of ([] as string[]).concat(st.Resource ?? [])) {
          const bucket = /^(arn:aws:s3:::[^/]+)\//.exec(resource)?.[1];
          if (bucket) readBuckets.add(bucket);
        }
      }
    }
    for (const bucket of readBuckets)
      reasons.push({ functionLogicalId: fn, actions: ['s3:ListBucket'], resource: bucket, reason: "S3's own check on a read of a missing key: it answers 404 NoSuchKey only to a caller that may s3:ListBucket the bucket (403 AccessDenied otherwise). The function reads objects of this bucket and lists nothing; the template form's S3 does not make that check." });
  }
  for (const [id, r] of Object.entries(template.Resources)) {
    const target = r.Type === 'AWS::Lambda::Function' ? r.Properties?.DeadLetterConfig?.TargetArn : undefined;
    if (target) reasons.push({ functionLogicalId: id, actions: SQS_DESTINATION, resource: arnOf(target), reason: "The function's dead-letter queue: Lambda sends an asynchronous event that failed every retry there with the function's role; the code never sends to it." });
  }
  return reasons;
}

export interface ExplainedGrant extends UnusedGrant {
  reason: string;
}

const matches = (want: string | RegExp, value: string) => (typeof want === 'string' ? want === value : want.test(value));

/** The unused grants with a written reason, and those without one (excess: the report's failures). */
export function explainUnused(unused: readonly UnusedGrant[], reasons: readonly GrantReason[] = UNUSED_GRANT_REASONS): { explained: ExplainedGrant[]; unexplained: UnusedGrant[] } {
  const explained: ExplainedGrant[] = [];
  const unexplained: UnusedGrant[] = [];
  for (const grant of unused) {
    const why = reasons.find((r) => matches(r.functionLogicalId, grant.functionLogicalId) && r.actions.includes(grant.action) && (!r.resource || matches(r.resource, grant.resource)));
    if (why) explained.push({ ...grant, reason: why.reason });
    else unexplained.push(grant);
  }
  return { explained, unexplained };
}

/**
 * The unused-grant report of a run's evidence: per function, each grant no allowed call used, with its written
 * reason or marked EXCESS (to remove from lib/). `unexplained` is what fails a run.
 */
export function unusedGrantReport(snapshot: EvidenceSnapshot): { text: string; explained: ExplainedGrant[]; unexplained: UnusedGrant[] } {
  const { explained, unexplained } = explainUnused(unusedGrantsOf(snapshot), [...UNUSED_GRANT_REASONS, ...UNREACHED_PATH_REASONS, ...(snapshot.reasons ?? [])]);
  const byFunction = new Map<string, string[]>();
  for (const g of [...unexplained.map((u) => ({ ...u, reason: '' })), ...explained]) {
    const lines = byFunction.get(g.functionLogicalId) ?? [];
    lines.push(`  ${g.reason ? 'reasoned' : 'EXCESS  '} ${g.action} on ${g.resource}${g.reason ? `\n           ${g.reason}` : ''}`);
    byFunction.set(g.functionLogicalId, lines);
  }
  const text = [
    `${snapshot.calls.length} distinct allowed calls by ${new Set(snapshot.calls.map((c) => c.functionLogicalId)).size} of ${Object.keys(snapshot.policies).length} functions`,
    ...[...byFunction].sort(([a], [b]) => a.localeCompare(b)).map(([fn, lines]) => `${fn}\n${lines.join('\n')}`),
    `${unexplained.length} unused grants without a reason, ${explained.length} with one`,
  ].join('\n');
  return { text, explained, unexplained };
}
