/**
 * IAM enforced on the template form (`npm run start:aws`): each function's AWS calls are checked against the
 * policies its synthesized template gives its role, as AWS would, and every allowed call is kept as evidence of what
 * the code uses. Dev tooling only (it runs @cloud-copilot/iam-simulate, AGPL): never imported by lib/ or lambdas/.
 *
 * - template.ts: the policy model (identity and resource policies, intrinsics resolved by the runner's names);
 * - gate.ts: evaluate({ functionLogicalId, action, resource, context }) → { allowed, reason };
 * - requests.ts + proxy.ts: the data-plane proxy in front of DynamoDB Local and the S3 server;
 * - access-keys.ts: the per-function access key ids the proxy identifies callers by;
 * - evidence.ts: the recorder and the unused-grant report; reasons.ts: why a grant no run can show is kept.
 */
export { accessKeyIdFor, functionForAccessKeyId } from './access-keys';
export {
  EvidenceRecorder,
  mergeEvidence,
  readEvidence,
  unusedGrants,
  unusedGrantsOf,
  wildcardMatch,
  writeEvidence,
  type EvidenceSnapshot,
  type RecordedCall,
  type UnusedGrant,
} from './evidence';
export { createIamGate, type IamDecision, type IamGate, type IamGateOptions, type IamRequest } from './gate';
export { explainUnused, templateReasons, UNREACHED_PATH_REASONS, UNUSED_GRANT_REASONS, unusedGrantReport, type ExplainedGrant, type GrantReason } from './reasons';
export { startIamProxy, type DeniedCall, type IamProxy, type IamProxyOptions } from './proxy';
export {
  AWS_MANAGED_POLICIES,
  createResolver,
  functionIds,
  identityPolicies,
  resolveIntrinsics,
  resourcePolicies,
  roleOf,
  type CfnTemplate,
  type NamedPolicy,
  type PolicyDocument,
  type Resolver,
  type ResolverOptions,
} from './template';
