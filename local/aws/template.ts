/**
 * The synthesized CloudFormation template as `npm run start:aws` runs it: found in cdk.out (synthesized with the
 * repository's CDK app when missing or older than the sources) or given with TEMPMAIL_TEMPLATE, with every resource
 * given the local name and the fake but consistent ARN it has on this machine, and CloudFormation's intrinsic
 * functions resolved against them (intrinsics.ts, the walker the IAM model uses too). Everything else under local/aws/ reads the stack from here, never from lib/ or
 * the route table: what runs is what the template says, so a template that is wrong fails here as on AWS.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { resolveIntrinsics } from './intrinsics';

/** The data folder's kind marker and state-file kind of the template form (the local stack's store-kind file). */
export const TEMPLATE_KIND = 'aws-template';
/** Where start:aws keeps its data when TEMPMAIL_DATA_DIR is unset: beside the local stack's `.tempmail`, never in it. */
export const DEFAULT_TEMPLATE_DATA_DIR = '.tempmail-aws';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_PARTITION = 'aws';
export const LOCAL_URL_SUFFIX = 'amazonaws.com';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DependsOn?: string | string[];
  Condition?: string;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Conditions?: Record<string, unknown>;
  Parameters?: Record<string, { Default?: unknown }>;
  Outputs?: Record<string, { Value: unknown }>;
}

const ROOT = path.resolve(__dirname, '..', '..');
/** What a synth depends on: a change under any of them makes cdk.out stale. */
const SOURCES = ['bin/app.ts', 'lib', 'lambdas', 'viewer/src', 'viewer/build.ts', 'cdk.json', 'package-lock.json'];

function newestMtime(entry: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

/** Where the stack's template and assets are: the template file and the folder its asset paths are relative to. */
export interface TemplateLocation {
  file: string;
  assetDir: string;
  stackName: string;
}

/**
 * What cdk.out was last synthesized for by start:aws (the domains given with -c) and the digest of the template that
 * synth wrote, beside the cloud assembly: a template written since by another command (a `cdk synth` that failed on
 * the example domains leaves one with no resources; one with real domains is another stack) is not taken as ours.
 */
export const SYNTH_STAMP = 'tempmail-local-synth.json';

const digestOf = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The stamp start:aws writes after its synth of `templateFile` for `domains` (and the checks' DNS, when given). */
export function synthStamp(domains: string[] | undefined, templateFile: string, checkDns?: string): string {
  return JSON.stringify({ domains: domains ?? null, ...(checkDns ? { checkDns } : {}), template: digestOf(templateFile) });
}

/** Why the template at `templateFile` is not the one start:aws synthesized for `domains` (stamp text given), if so. */
export function stampMismatch(stamp: string | undefined, domains: string[] | undefined, templateFile: string, checkDns?: string): string | undefined {
  let stamped: { domains?: unknown; checkDns?: unknown; template?: unknown } = {};
  try {
    stamped = stamp ? (JSON.parse(stamp) as typeof stamped) : {};
  } catch {
    // an unreadable stamp is no stamp
  }
  if (JSON.stringify(stamped.domains ?? null) !== JSON.stringify(domains ?? null)) return 'cdk.out was synthesized for other domains';
  if ((stamped.checkDns ?? null) !== (checkDns ?? null)) return 'cdk.out was synthesized for another TEMPMAIL_CHECK_DNS';
  if (stamped.template !== digestOf(templateFile)) return 'cdk.out was written by another synth since start:aws made it';
  return undefined;
}

/** The one stack of a cloud assembly, from its manifest. */
function stackOfAssembly(outDir: string): TemplateLocation {
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; displayName?: string; properties?: { templateFile?: string; stackName?: string } }>;
  };
  const stacks = Object.entries(manifest.artifacts ?? {}).filter(([, a]) => a.type === 'aws:cloudformation:stack');
  if (stacks.length !== 1) throw new Error(`${outDir} holds ${stacks.length} stacks; start:aws runs exactly one (or give TEMPMAIL_TEMPLATE)`);
  const [id, artifact] = stacks[0];
  return { file: path.join(outDir, artifact.properties!.templateFile!), assetDir: outDir, stackName: artifact.properties?.stackName ?? id };
}

/**
 * The template to run: TEMPMAIL_TEMPLATE when set (its assets beside it; the stack named after the file), else the
 * stack in cdk.out, synthesized first when missing, older than the sources, or synthesized for other domains.
 * `domains`: passed to the synth as context (cdk.json ships example domains, which synth refuses); `checkDns` likewise
 * (tempmail:checkDns: the checks function's TEMPMAIL_CHECK_DNS, as a deployer would set it).
 */
export function locateTemplate(options: { templateFile?: string; domains?: string[]; checkDns?: string; log: (line: string) => void }): TemplateLocation {
  if (options.templateFile) {
    const file = path.resolve(options.templateFile);
    if (!fs.existsSync(file)) throw new Error(`TEMPMAIL_TEMPLATE: no such file: ${file}`);
    return { file, assetDir: path.dirname(file), stackName: path.basename(file).replace(/\.template\.json$|\.json$/, '') };
  }
  const outDir = path.join(ROOT, 'cdk.out');
  const stampFile = path.join(outDir, SYNTH_STAMP);
  let reason: string | undefined;
  let location: TemplateLocation | undefined;
  try {
    location = stackOfAssembly(outDir);
  } catch {
    reason = 'no cloud assembly in cdk.out';
  }
  if (location && !fs.existsSync(location.file)) reason = 'no template in cdk.out';
  else if (location && fs.statSync(location.file).mtimeMs < Math.max(...SOURCES.map((s) => newestMtime(path.join(ROOT, s))))) reason = 'cdk.out is older than the sources';
  else if (location) reason = stampMismatch(fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8') : undefined, options.domains, location.file, options.checkDns);
  if (!reason) return location!;
  options.log(`[template] ${reason}: synthesizing with the CDK app (cdk synth)`);
  const started = Date.now();
  const context = [
    ...(options.domains ? ['-c', `tempmail:domains=${options.domains.join(',')}`] : []),
    ...(options.checkDns ? ['-c', `tempmail:checkDns=${options.checkDns}`] : []),
  ];
  const cdk = path.join(ROOT, 'node_modules', '.bin', 'cdk');
  const run = spawnSync(cdk, ['synth', '--quiet', '--output', outDir, ...context], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status !== 0) throw new Error(`cdk synth failed (exit ${run.status}):\n${(run.stderr || run.stdout || '').slice(-4000)}`);
  const synthesized = stackOfAssembly(outDir);
  fs.writeFileSync(stampFile, synthStamp(options.domains, synthesized.file, options.checkDns));
  options.log(`[template] synthesized in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return synthesized;
}

export function readTemplate(location: TemplateLocation): CfnTemplate {
  const template = JSON.parse(fs.readFileSync(location.file, 'utf8')) as CfnTemplate;
  if (!template.Resources || typeof template.Resources !== 'object') throw new Error(`${location.file} is not a CloudFormation template (no Resources)`);
  return template;
}

/** A stable short id from a logical id, for resources whose physical id AWS generates (API ids, key ids). */
const stableId = (seed: string, length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string => {
  const digest = createHash('sha256').update(seed).digest();
  return Array.from(digest.subarray(0, length), (b) => alphabet[b % alphabet.length]).join('');
};

const uuidFrom = (seed: string): string => {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** The local endpoints the ARNs and URLs of some resources point at (queue URLs, the API's URL). */
export interface LocalEndpoints {
  sqs: string;
  apiUrl: string;
}

/**
 * The stack's resources with local names and ARNs, and the intrinsic-function resolver over them. Names are
 * deterministic (stack name + logical id), so a data folder keeps matching its template across restarts.
 */
export class LocalStackModel {
  readonly region = LOCAL_REGION;
  readonly account = LOCAL_ACCOUNT;
  /** Physical ids a custom resource returned (Create), by logical id; and the Data it returned, for Fn::GetAtt. */
  readonly customPhysicalIds = new Map<string, string>();
  readonly customData = new Map<string, Record<string, unknown>>();

  constructor(
    readonly template: CfnTemplate,
    readonly location: TemplateLocation,
    private readonly endpoints: LocalEndpoints,
  ) {}

  get stackName(): string {
    return this.location.stackName;
  }

  resources(type: string): [string, CfnResource][] {
    return Object.entries(this.template.Resources).filter(([id, r]) => r.Type === type && this.included(id));
  }

  resource(logicalId: string): CfnResource {
    const r = this.template.Resources[logicalId];
    if (!r) throw new Error(`the template has no resource ${logicalId}`);
    return r;
  }

  /** Resources under a false Condition do not exist. */
  included(logicalId: string): boolean {
    const condition = this.template.Resources[logicalId]?.Condition;
    return condition === undefined || this.condition(condition);
  }

  private condition(name: string): boolean {
    return Boolean(this.resolve({ Condition: name }));
  }

  /** A name as CloudFormation would generate one: stack-logicalId, cut to `max` characters. */
  physicalName(logicalId: string, max = 64, lower = false): string {
    const name = `${this.stackName}-${logicalId}`;
    const cut = name.length > max ? `${name.slice(0, max - 9)}-${stableId(name, 8)}` : name;
    return lower ? cut.toLowerCase() : cut;
  }

  tableName(logicalId: string): string {
    return String((this.resource(logicalId).Properties?.TableName as string | undefined) ?? this.physicalName(logicalId, 255));
  }

  bucketName(logicalId: string): string {
    const given = this.resource(logicalId).Properties?.BucketName;
    return given ? String(this.resolve(given)) : this.physicalName(logicalId, 63, true);
  }

  queueName(logicalId: string): string {
    const given = this.resource(logicalId).Properties?.QueueName;
    return given ? String(this.resolve(given)) : this.physicalName(logicalId, 80);
  }

  queueUrl(logicalId: string): string {
    return `${this.endpoints.sqs}/${this.account}/${this.queueName(logicalId)}`;
  }

  functionName(logicalId: string): string {
    const given = this.resource(logicalId).Properties?.FunctionName;
    return given ? String(this.resolve(given)) : this.physicalName(logicalId, 64);
  }

  functionArn(logicalId: string): string {
    return `arn:${LOCAL_PARTITION}:lambda:${this.region}:${this.account}:function:${this.functionName(logicalId)}`;
  }

  /** The logical id of the function an ARN (or name) names, if it is one of the template's. */
  functionByArn(arnOrName: string): string | undefined {
    const name = arnOrName.startsWith('arn:') ? arnOrName.split(':')[6] : arnOrName;
    return this.resources('AWS::Lambda::Function').find(([id]) => this.functionName(id) === name)?.[0];
  }

  restApiId(logicalId: string): string {
    return stableId(`restapi:${this.stackName}:${logicalId}`, 10);
  }

  /** The API's base URL on AWS (what the template's Fn::Join builds); local values replace it with the gateway's. */
  private awsApiBase(restApiLogicalId: string): string {
    return `https://${this.restApiId(restApiLogicalId)}.execute-api.${this.region}.${LOCAL_URL_SUFFIX}`;
  }

  ref(logicalId: string): unknown {
    switch (logicalId) {
      case 'AWS::Region':
        return this.region;
      case 'AWS::AccountId':
        return this.account;
      case 'AWS::Partition':
        return LOCAL_PARTITION;
      case 'AWS::URLSuffix':
        return LOCAL_URL_SUFFIX;
      case 'AWS::StackName':
        return this.stackName;
      case 'AWS::StackId':
        return `arn:${LOCAL_PARTITION}:cloudformation:${this.region}:${this.account}:stack/${this.stackName}/${uuidFrom(this.stackName)}`;
      case 'AWS::NoValue':
        return undefined;
      case 'AWS::NotificationARNs':
        return [];
    }
    const parameter = this.template.Parameters?.[logicalId];
    if (parameter) return parameter.Default;
    const r = this.resource(logicalId);
    const props = r.Properties ?? {};
    switch (r.Type) {
      case 'AWS::DynamoDB::Table':
      case 'AWS::DynamoDB::GlobalTable':
        return this.tableName(logicalId);
      case 'AWS::S3::Bucket':
        return this.bucketName(logicalId);
      case 'AWS::SQS::Queue':
        return this.queueUrl(logicalId);
      case 'AWS::Lambda::Function':
        return this.functionName(logicalId);
      case 'AWS::KMS::Key':
        return uuidFrom(`kms:${this.stackName}:${logicalId}`);
      case 'AWS::ApiGateway::RestApi':
        return this.restApiId(logicalId);
      case 'AWS::ApiGateway::Stage':
        return String(this.resolve(props.StageName));
      case 'AWS::SES::ReceiptRuleSet':
        return props.RuleSetName ? String(this.resolve(props.RuleSetName)) : this.physicalName(logicalId);
      case 'AWS::SNS::Topic':
        return `arn:${LOCAL_PARTITION}:sns:${this.region}:${this.account}:${this.physicalName(logicalId, 256)}`;
      case 'AWS::Logs::LogGroup':
        return props.LogGroupName ? String(this.resolve(props.LogGroupName)) : this.physicalName(logicalId, 512);
      case 'AWS::IAM::Role':
        return props.RoleName ? String(this.resolve(props.RoleName)) : this.physicalName(logicalId, 64);
      default:
        if (r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource') return this.customPhysicalIds.get(logicalId) ?? logicalId;
        if (r.Type.startsWith('AWS::ApiGateway::')) return stableId(`${r.Type}:${this.stackName}:${logicalId}`, 10);
        return this.physicalName(logicalId);
    }
  }

  getAtt(logicalId: string, attribute: string): unknown {
    const r = this.resource(logicalId);
    const arn = (service: string, resource: string) => `arn:${LOCAL_PARTITION}:${service}:${this.region}:${this.account}:${resource}`;
    switch (`${r.Type}.${attribute}`) {
      case 'AWS::DynamoDB::Table.Arn':
      case 'AWS::DynamoDB::GlobalTable.Arn':
        return arn('dynamodb', `table/${this.tableName(logicalId)}`);
      case 'AWS::DynamoDB::Table.StreamArn':
      case 'AWS::DynamoDB::GlobalTable.StreamArn':
        return arn('dynamodb', `table/${this.tableName(logicalId)}/stream/local`);
      case 'AWS::S3::Bucket.Arn':
        return `arn:${LOCAL_PARTITION}:s3:::${this.bucketName(logicalId)}`;
      case 'AWS::S3::Bucket.DomainName':
        return `${this.bucketName(logicalId)}.s3.${LOCAL_URL_SUFFIX}`;
      case 'AWS::S3::Bucket.RegionalDomainName':
        return `${this.bucketName(logicalId)}.s3.${this.region}.${LOCAL_URL_SUFFIX}`;
      case 'AWS::SQS::Queue.Arn':
        return arn('sqs', this.queueName(logicalId));
      case 'AWS::SQS::Queue.QueueName':
        return this.queueName(logicalId);
      case 'AWS::SQS::Queue.QueueUrl':
        return this.queueUrl(logicalId);
      case 'AWS::Lambda::Function.Arn':
        return this.functionArn(logicalId);
      case 'AWS::KMS::Key.Arn':
        return arn('kms', `key/${this.ref(logicalId)}`);
      case 'AWS::KMS::Key.KeyId':
        return this.ref(logicalId);
      case 'AWS::IAM::Role.Arn':
        return `arn:${LOCAL_PARTITION}:iam::${this.account}:role/${this.ref(logicalId)}`;
      case 'AWS::Logs::LogGroup.Arn':
        return arn('logs', `log-group:${this.ref(logicalId)}:*`);
      case 'AWS::SNS::Topic.TopicArn':
        return this.ref(logicalId);
      case 'AWS::ApiGateway::RestApi.RootResourceId':
        return stableId(`root:${this.stackName}:${logicalId}`, 10);
      default:
        if (r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource') return this.customData.get(logicalId)?.[attribute];
        return arn(r.Type.split('::')[1]?.toLowerCase() ?? 'unknown', `${logicalId}/${attribute}`);
    }
  }

  /** Resolves CloudFormation's intrinsic functions in `value` (deeply), with this model's names (intrinsics.ts). */
  resolve(value: unknown): unknown {
    return resolveIntrinsics(value, (id, attribute) => (attribute ? this.getAtt(id, attribute) : this.ref(id)), this.template);
  }

  /**
   * A value the functions see: resolved, with the API's AWS URL (https://<id>.execute-api.<region>.amazonaws.com/<stage>)
   * replaced by the local gateway's, which serves the stage at its root.
   */
  localValue(value: unknown): string {
    let text = String(this.resolve(value));
    for (const [id] of this.resources('AWS::ApiGateway::RestApi')) {
      const base = this.awsApiBase(id);
      if (!text.startsWith(base)) continue;
      const rest = text.slice(base.length).replace(/^\/[^/]+/, ''); // the stage
      text = `${this.endpoints.apiUrl}${rest}`;
    }
    return text;
  }

  /** The folder of a function's code in the cloud assembly (its asset metadata), or undefined for inline code. */
  assetPath(logicalId: string): string | undefined {
    const r = this.resource(logicalId);
    const asset = r.Metadata?.['aws:asset:path'];
    if (typeof asset !== 'string') return undefined;
    return path.resolve(this.location.assetDir, asset);
  }
}
