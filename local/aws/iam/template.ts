import type { AwsJson } from '../cfn-json';
import { NO_VALUE_REF, resolveIntrinsics } from '../intrinsics';
/**
 * The IAM policy model of a synthesized template (cdk.out/<stack>.template.json): for a function's logical id, the
 * identity policies its execution role carries, and the resource policies (bucket, queue, key, topic) the template
 * attaches to resources, with every intrinsic resolved to the names and ARNs the local runner gave its resources.
 *
 * Why from the template and not from lib/permissions.ts: the template is what AWS enforces. Checking calls against
 * the mapping that generated the template would prove nothing about a grant CDK added, dropped or widened on its own.
 *
 * Names are the runner's to decide (it creates the table, bucket and queues); it passes a `resolve(logicalId,
 * attribute?)` here. `createResolver` is a default one that makes consistent fake names and ARNs in a given region
 * and account, and takes the runner's names for the resources it created.
 */

/** The part of a CloudFormation template read here. */
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Conditions?: Record<string, unknown>;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, AwsJson>;
}

/** An IAM policy document after intrinsics are resolved. */
export interface PolicyDocument {
  Version?: string;
  Statement: PolicyStatement[];
}

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Principal?: unknown;
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface NamedPolicy {
  /** The policy's logical id, or the managed policy's ARN. */
  name: string;
  policy: PolicyDocument;
}

/** A Ref (attribute undefined) or a Fn::GetAtt, answered with the local resource's name or ARN. */
export type Resolver = (logicalId: string, attribute?: string) => string;

export const PSEUDO = {
  region: 'AWS::Region',
  account: 'AWS::AccountId',
  partition: 'AWS::Partition',
  stackName: 'AWS::StackName',
  urlSuffix: 'AWS::URLSuffix',
  noValue: NO_VALUE_REF,
} as const;

export interface ResolverOptions {
  template: CfnTemplate;
  region: string;
  accountId: string;
  stackName?: string;
  /** The physical names the runner gave resources (a table's TableName, a bucket's, a queue's), by logical id. */
  names?: Record<string, string>;
  /** Attributes the runner knows better than this default (e.g. a table's StreamArn once the stream exists). */
  attributes?: Record<string, Record<string, string>>;
}

/** Property holding the physical name, for types whose template may name them. */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::DynamoDB::GlobalTable': 'TableName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::SNS::Topic': 'TopicName',
};

/**
 * Consistent fake names and ARNs: a resource's name is the runner's (options.names), the template's own name
 * property, or `<stack>-<logicalId>` (lower case for buckets, as S3 requires), as CloudFormation generates them.
 * A table's StreamArn ends in `/stream/*` unless the runner says otherwise: its label exists only once DynamoDB Local
 * has created the stream.
 */
export function createResolver(options: ResolverOptions): Resolver {
  const { template, region, accountId } = options;
  const stackName = options.stackName ?? 'TempMail';
  const resolver: Resolver = (logicalId, attribute) => {
    switch (logicalId) {
      case PSEUDO.region:
        return region;
      case PSEUDO.account:
        return accountId;
      case PSEUDO.partition:
        return 'aws';
      case PSEUDO.stackName:
        return stackName;
      case PSEUDO.urlSuffix:
        return 'amazonaws.com';
    }
    const resource = template.Resources[logicalId];
    if (!resource) throw new Error(`the template has no resource ${logicalId}`);
    const known = attribute ? options.attributes?.[logicalId]?.[attribute] : undefined;
    if (known) return known;
    const named = resource.Properties?.[NAME_PROPERTY[resource.Type] ?? ''];
    const base = options.names?.[logicalId] ?? (typeof named === 'string' ? named : `${stackName}-${logicalId}`);
    const name = resource.Type === 'AWS::S3::Bucket' ? base.toLowerCase() : base;
    const arn = (service: string, rest: string, regional = true) => `arn:aws:${service}:${regional ? region : ''}:${accountId}:${rest}`;
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table':
      case 'AWS::DynamoDB::GlobalTable':
        if (attribute === 'Arn') return arn('dynamodb', `table/${name}`);
        if (attribute === 'StreamArn') return arn('dynamodb', `table/${name}/stream/*`);
        return name;
      case 'AWS::S3::Bucket':
        if (attribute === 'Arn') return `arn:aws:s3:::${name}`;
        if (attribute === 'DomainName' || attribute === 'RegionalDomainName') return `${name}.s3.${region}.amazonaws.com`;
        return name;
      case 'AWS::SQS::Queue':
        if (attribute === 'Arn') return arn('sqs', name);
        if (attribute === 'QueueName') return name;
        return `https://sqs.${region}.amazonaws.com/${accountId}/${name}`; // Ref: the queue URL
      case 'AWS::KMS::Key': {
        const keyId = fakeUuid(`${stackName}/${logicalId}`);
        return attribute === 'Arn' ? arn('kms', `key/${keyId}`) : keyId;
      }
      case 'AWS::IAM::Role':
        return attribute === 'Arn' ? `arn:aws:iam::${accountId}:role/${name}` : name;
      case 'AWS::Lambda::Function':
        return attribute === 'Arn' ? arn('lambda', `function:${name}`) : name;
      case 'AWS::SNS::Topic':
        return attribute === 'TopicName' ? name : arn('sns', name); // Ref: the topic ARN
      case 'AWS::Logs::LogGroup':
        return attribute === 'Arn' ? arn('logs', `log-group:${name}:*`) : name;
      default:
        return attribute ? arn(resource.Type.split('::')[1].toLowerCase(), `${logicalId}/${attribute}`) : name;
    }
  };
  return resolver;
}

/** A stable UUID-shaped id (KMS key ids are UUIDs) from a string, without randomness so every process agrees. */
function fakeUuid(seed: string): string {
  // FNV-1a over the seed, stretched to 32 hex digits; uniqueness across a handful of keys is all that matters here.
  let hex = '';
  for (let round = 0; hex.length < 32; round++) {
    let h = 0x811c9dc5 ^ round;
    for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    hex += h.toString(16).padStart(8, '0');
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A policy's intrinsics are resolved by the template form's one walker (../intrinsics.ts), with `resolve`'s names and
 * the template's Conditions, so a policy and the resource it names are resolved by the same rules. Anything it does
 * not know is an error rather than a guess: a policy resolved wrongly would allow or deny for the wrong reason.
 */
export { resolveIntrinsics };

/** The Lambda functions of a template, by logical id. */
export function functionIds(template: CfnTemplate): string[] {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id]) => id);
}

/** The logical id of a function's execution role (its Role is a Fn::GetAtt of a role in the template). */
export function roleOf(template: CfnTemplate, functionLogicalId: string): string {
  const fn = template.Resources[functionLogicalId];
  if (fn?.Type !== 'AWS::Lambda::Function') throw new Error(`the template has no function ${functionLogicalId}`);
  const role = fn.Properties?.Role;
  const id = role?.['Fn::GetAtt']?.[0] ?? (typeof role?.['Fn::GetAtt'] === 'string' ? role['Fn::GetAtt'].split('.')[0] : undefined);
  if (!id || !template.Resources[id]) throw new Error(`${functionLogicalId}: its Role is not a role of this template (${JSON.stringify(role)})`);
  return id;
}

/** True when `value` (a Ref, a GetAtt or a resolved string) names the role `roleId`. */
function refersTo(value: unknown, roleId: string, roleName: string): boolean {
  if (typeof value === 'string') return value === roleName;
  const v = value as { Ref?: string; 'Fn::GetAtt'?: unknown };
  return v?.Ref === roleId;
}

/**
 * The identity policies on a function's role: its inline Policies, the AWS::IAM::Policy and
 * AWS::IAM::ManagedPolicy resources that name the role, and the managed policies in its ManagedPolicyArns (AWS's own
 * by their published content, see AWS_MANAGED_POLICIES; a customer managed policy of this template by its document).
 */
export function identityPolicies(template: CfnTemplate, functionLogicalId: string, resolve: Resolver): NamedPolicy[] {
  const roleId = roleOf(template, functionLogicalId);
  const role = template.Resources[roleId];
  const roleName = resolve(roleId);
  const policies: NamedPolicy[] = [];
  for (const inline of (role.Properties?.Policies ?? []) as { PolicyName: unknown; PolicyDocument: unknown }[]) {
    policies.push({ name: String(resolveIntrinsics(inline.PolicyName, resolve, template)), policy: resolveIntrinsics(inline.PolicyDocument, resolve, template) });
  }
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
    if (!((r.Properties?.Roles ?? []) as unknown[]).some((x) => refersTo(x, roleId, roleName))) continue;
    policies.push({ name: id, policy: resolveIntrinsics(r.Properties!.PolicyDocument, resolve, template) });
  }
  for (const raw of (role.Properties?.ManagedPolicyArns ?? []) as unknown[]) {
    // A customer managed policy of this template, by Ref (unless its own Roles list attached it already), or AWS's.
    const ref = (raw as { Ref?: string })?.Ref;
    const managed = ref ? template.Resources[ref] : undefined;
    if (managed?.Type === 'AWS::IAM::ManagedPolicy') {
      if (!policies.some((p) => p.name === ref)) policies.push({ name: ref!, policy: resolveIntrinsics(managed.Properties!.PolicyDocument, resolve, template) });
      continue;
    }
    const arn = String(resolveIntrinsics(raw, resolve, template));
    policies.push({ name: arn, policy: awsManagedPolicy(arn) });
  }
  return policies;
}

/** The resource policy documents of a template, keyed by the ARN of the resource each governs. */
export function resourcePolicies(template: CfnTemplate, resolve: Resolver): Map<string, PolicyDocument> {
  const byArn = new Map<string, PolicyDocument>();
  const add = (arn: string, doc: PolicyDocument) => {
    const existing = byArn.get(arn);
    byArn.set(arn, existing ? { Version: '2012-10-17', Statement: [...existing.Statement, ...doc.Statement] } : doc);
  };
  const idOf = (v: unknown) => (v as { Ref?: string })?.Ref;
  for (const [id, r] of Object.entries(template.Resources)) {
    const p = r.Properties ?? {};
    switch (r.Type) {
      case 'AWS::S3::BucketPolicy': {
        const bucket = idOf(p.Bucket);
        const name = bucket ? resolve(bucket) : String(resolveIntrinsics(p.Bucket, resolve, template));
        add(`arn:aws:s3:::${name}`, resolveIntrinsics(p.PolicyDocument, resolve, template));
        break;
      }
      case 'AWS::SQS::QueuePolicy':
        for (const q of p.Queues ?? []) {
          const queue = idOf(q);
          if (queue) add(resolve(queue, 'Arn'), resolveIntrinsics(p.PolicyDocument, resolve, template));
        }
        break;
      case 'AWS::SNS::TopicPolicy':
        for (const t of p.Topics ?? []) add(String(resolveIntrinsics(t, resolve, template)), resolveIntrinsics(p.PolicyDocument, resolve, template));
        break;
      case 'AWS::KMS::Key':
        if (p.KeyPolicy) add(resolve(id, 'Arn'), resolveIntrinsics(p.KeyPolicy, resolve, template));
        break;
    }
  }
  return byArn;
}

/**
 * The resource policy that governs an ARN: an object's bucket's, or the resource's own (a queue's, a key's). */
export function resourcePolicyFor(policies: Map<string, PolicyDocument>, resourceArn: string): PolicyDocument | undefined {
  const s3 = /^arn:aws:s3:::([^/]+)/.exec(resourceArn);
  return policies.get(s3 ? `arn:aws:s3:::${s3[1]}` : resourceArn);
}

/**
 * AWS managed policies by their published content (the documents in IAM, version current at the time of writing).
 * Only those this project's templates attach; an unknown one is refused rather than treated as empty or as allow-all.
 */
export const AWS_MANAGED_POLICIES: Record<string, PolicyDocument> = {
  'service-role/AWSLambdaBasicExecutionRole': {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'], Resource: '*' }],
  },
  'service-role/AmazonAPIGatewayPushToCloudWatchLogs': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: [
          'logs:CreateLogGroup',
          'logs:CreateLogStream',
          'logs:DescribeLogGroups',
          'logs:DescribeLogStreams',
          'logs:PutLogEvents',
          'logs:GetLogEvents',
          'logs:FilterLogEvents',
        ],
        Resource: '*',
      },
    ],
  },
};

export function awsManagedPolicy(arn: string): PolicyDocument {
  const name = /^arn:aws[\w-]*:iam::aws:policy\/(.+)$/.exec(arn)?.[1];
  const policy = name ? AWS_MANAGED_POLICIES[name] : undefined;
  if (!policy) throw new Error(`managed policy ${arn}: its content is not known to the IAM model (add it to AWS_MANAGED_POLICIES)`);
  return policy;
}
