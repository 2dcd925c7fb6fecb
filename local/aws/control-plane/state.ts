/**
 * What the control-plane stand-in's services share (local/aws/control-plane/): the call as IAM sees it and its
 * check, the state held in memory (stacks, API keys, usage plans, rule sets, KMS keys) and the error each service
 * answers in its own shape.
 */
export type ControlPlaneService = 'cloudformation' | 'apigateway' | 'ses' | 'kms';

export interface ControlPlaneCall {
  service: ControlPlaneService;
  /** The IAM action, as a policy names it: `apigateway:POST`, `ses:SetActiveReceiptRuleSet`. */
  action: string;
  /** The API operation: CreateApiKey, SetActiveReceiptRuleSet. */
  operation: string;
  /** The ARN IAM evaluates the action on (`*` where the action has no resource type). */
  resource: string;
  /** From the request's SigV4 credential scope; undefined for an unsigned request. */
  accessKeyId?: string;
}

export interface UsagePlanSpec {
  id: string;
  name: string;
  description?: string;
  apiStages?: { apiId: string; stage: string }[];
  throttle?: { burstLimit?: number; rateLimit?: number };
  quota?: { limit: number; offset?: number; period: 'DAY' | 'WEEK' | 'MONTH' };
}

export interface ApiKeyState {
  id: string;
  name: string;
  description?: string;
  value: string;
  enabled: boolean;
  createdDate: Date;
  lastUpdatedDate: Date;
}

export interface ControlPlaneState {
  region: string;
  account: string;
  /** CloudFormation stacks by name. */
  stacks: Map<string, { id: string; created: Date; outputs: Record<string, string> }>;
  /** API Gateway's keys by id, its usage plans by id, and each plan's key ids. */
  apiKeys: Map<string, ApiKeyState>;
  plans: Map<string, UsagePlanSpec>;
  planKeys: Map<string, Set<string>>;
  /** SES receipt rule sets by name (their creation time), and the active one. */
  ruleSets: Map<string, Date>;
  activeRuleSet: string | undefined;
  /** KMS key ids → the secret each seals with. */
  kmsKeys: Map<string, Buffer>;
}

/** Records the call and refuses it (a ServiceError) when `authorize` denies it. */
export type Check = (call: ControlPlaneCall) => Promise<void>;

/** An error answered in the service's own shape. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A KMS key id, from a key id or a key ARN. */
export const kmsKeyId = (idOrArn: string): string => idOrArn.replace(/^arn:aws:kms:[^:]*:[^:]*:key\//, '');
