/**
 * The IAM decision for one call of one function: its role's identity policies and the resource's policy from the
 * template (template.ts), evaluated by @cloud-copilot/iam-simulate, as AWS would for the function's role session.
 *
 * iam-simulate is AGPL: a dev dependency of the local runner only. Nothing under lib/ or lambdas/ may import this
 * module, so no bundled Lambda code and no deployed artifact carries it.
 *
 * Every allowed decision is recorded (evidence.ts): the unused-grant report rests on what was actually allowed, by
 * the proxy's data-plane calls and by the control-plane stand-ins that call `evaluate` themselves (KMS, SES …).
 *
 * Assumptions, stated once: one account and region (the runner's); no SCP, RCP, permission boundary or session
 * policy (the stack has none); every call is made over TLS as the SDK does on AWS (`aws:SecureTransport` true), so
 * the stack's deny-insecure-transport statements never fire on the loopback's plain HTTP.
 */
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { EvidenceRecorder, type EvidenceSnapshot } from './evidence';
import { templateReasons } from './reasons';
import {
  createResolver,
  functionIds,
  identityPolicies,
  resourcePolicies,
  resourcePolicyFor,
  roleOf,
  type CfnTemplate,
  type NamedPolicy,
  type PolicyDocument,
  type Resolver,
} from './template';

export interface IamRequest {
  functionLogicalId: string;
  /** `service:Action`, e.g. `dynamodb:PutItem`. */
  action: string;
  /** The resource's ARN (`*` for actions that take none). */
  resource: string;
  /** Request context keys (e.g. `s3:prefix`), on top of the principal's and `aws:SecureTransport`. */
  context?: Record<string, string | string[]>;
}

export interface IamDecision {
  allowed: boolean;
  /** Why, in AWS's words: "User: … is not authorized to perform: … because …", or which statement allowed it. */
  reason: string;
  /** The calling role session's ARN (`arn:aws:sts::<account>:assumed-role/<role>/<function>`). */
  principal: string;
}

export interface IamGateOptions {
  template: CfnTemplate;
  region: string;
  accountId: string;
  /** The runner's names and ARNs; defaults to createResolver with the same template, region and account. */
  resolve?: Resolver;
  /** Where allowed calls are recorded; a new recorder when omitted. */
  evidence?: EvidenceRecorder;
}

export interface IamGate {
  readonly region: string;
  readonly accountId: string;
  readonly template: CfnTemplate;
  readonly resolve: Resolver;
  readonly evidence: EvidenceRecorder;
  /** The template's functions (logical ids). */
  readonly functions: readonly string[];
  evaluate(request: IamRequest): Promise<IamDecision>;
  /** The identity policies of a function's role, resolved (for reports and tests). */
  policiesOf(functionLogicalId: string): NamedPolicy[];
  /** Every function's resolved policies and every call allowed so far (evidence.ts: writeEvidence, unusedGrantsOf). */
  snapshot(): EvidenceSnapshot;
}

/** Decisions are pure functions of (policies, request): cached, and the cache bounded. */
const CACHE_LIMIT = 10_000;

export function createIamGate(options: IamGateOptions): IamGate {
  const { template, region, accountId } = options;
  const resolve = options.resolve ?? createResolver({ template, region, accountId });
  const evidence = options.evidence ?? new EvidenceRecorder();
  const functions = functionIds(template);
  const identity = new Map<string, NamedPolicy[]>();
  const policiesOf = (fn: string) => {
    let found = identity.get(fn);
    if (!found) identity.set(fn, (found = identityPolicies(template, fn, resolve)));
    return found;
  };
  const resources = resourcePolicies(template, resolve);
  const principals = new Map<string, { session: string; role: string }>();
  const principalOf = (fn: string) => {
    let p = principals.get(fn);
    if (!p) {
      const roleId = roleOf(template, fn);
      const roleArn = resolve(roleId, 'Arn');
      const roleName = roleArn.split('/').pop()!;
      p = { session: `arn:aws:sts::${accountId}:assumed-role/${roleName}/${resolve(fn)}`, role: roleArn };
      principals.set(fn, p);
    }
    return p;
  };
  const cache = new Map<string, Promise<{ allowed: boolean; reason: string }>>();

  const decide = async (request: IamRequest): Promise<{ allowed: boolean; reason: string }> => {
    const principal = principalOf(request.functionLogicalId);
    const resourcePolicy: PolicyDocument | undefined = resourcePolicyFor(resources, request.resource);
    const simulation: Simulation = {
      request: {
        principal: principal.session,
        action: request.action,
        resource: { resource: request.resource, accountId },
        contextVariables: {
          'aws:PrincipalArn': principal.role,
          'aws:PrincipalAccount': accountId,
          'aws:PrincipalType': 'AssumedRole',
          'aws:SecureTransport': 'true',
          'aws:RequestedRegion': region,
          ...request.context,
        },
      },
      identityPolicies: policiesOf(request.functionLogicalId),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy,
    };
    const result = await runSimulation(simulation, {});
    if (result.resultType === 'error') {
      // Not a decision AWS would make: a policy or request the simulator cannot read. Denied, loudly.
      return { allowed: false, reason: `the IAM simulator refused the request: ${result.errors.message} ${JSON.stringify(result.errors)}` };
    }
    if (result.resultType !== 'single') return { allowed: false, reason: `the resource ${request.resource} is not one ARN` };
    const analysis = result.result.analysis;
    if (result.overallResult === 'Allowed') {
      const by = analysis.identityAnalysis?.allowStatements[0] ?? analysis.resourceAnalysis?.allowStatements[0];
      return { allowed: true, reason: `allowed by ${by ? `${by.policyId ?? 'a policy'} statement ${by.statement.sid() ?? by.statement.index()}` : 'policy'}` };
    }
    const denied = `User: ${principal.session} is not authorized to perform: ${request.action} on resource: ${request.resource}`;
    if (result.overallResult === 'ExplicitlyDenied') {
      const inResource = (analysis.resourceAnalysis?.denyStatements.length ?? 0) > 0;
      return { allowed: false, reason: `${denied} with an explicit deny in ${inResource ? 'a resource-based' : 'an identity-based'} policy` };
    }
    return { allowed: false, reason: `${denied} because no identity-based policy allows the ${request.action} action` };
  };

  return {
    region,
    accountId,
    template,
    resolve,
    evidence,
    functions,
    policiesOf,
    snapshot: () => ({
      policies: Object.fromEntries(functions.map((fn) => [fn, policiesOf(fn)])),
      calls: evidence.calls().map(({ functionLogicalId, action, resource }) => ({ functionLogicalId, action, resource })),
      reasons: templateReasons(template, resolve) as EvidenceSnapshot['reasons'],
    }),
    async evaluate(request) {
      if (!functions.includes(request.functionLogicalId)) throw new Error(`the template has no function ${request.functionLogicalId}`);
      const key = JSON.stringify([request.functionLogicalId, request.action, request.resource, request.context ?? {}]);
      let decision = cache.get(key);
      if (!decision) {
        if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
        cache.set(key, (decision = decide(request)));
      }
      const { allowed, reason } = await decision;
      if (allowed) evidence.record(request.functionLogicalId, request.action, request.resource);
      return { allowed, reason, principal: principalOf(request.functionLogicalId).session };
    },
  };
}
