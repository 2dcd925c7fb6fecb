/**
 * A stand-in for the AWS *control plane* that the admin CLI (cli/aws-admin.ts), the deploy custom resource
 * (lambdas/deploy/receipt-rule-set.ts) and the webhook secret box (KMS) call: one loopback HTTP server, state in
 * memory, answering in each service's own wire protocol so that the real AWS SDK v3 clients talk to it unchanged.
 * The data plane is not here: DynamoDB and S3 stay DynamoDB Local and the S3 server (local/dynamodb-local.ts,
 * local/s3-server.ts), which run the real thing.
 *
 * Interface:
 *   const cp = await startControlPlane({ stacks: { TempMail: { ApiUrl: '…', … } }, usagePlans: [{ id, name }],
 *                                        ruleSets: ['TempMail-rules'], kmsKeys: ['key-id'], authorize });
 *   Object.assign(process.env, cp.endpointEnv());   // AWS_ENDPOINT_URL_{CLOUDFORMATION,API_GATEWAY,SES,KMS}
 *   cp.apiKeys(); cp.usagePlanKeys(planId); cp.activeRuleSet(); cp.calls(); await cp.close();
 *
 * Services and operations answered:
 * - CloudFormation (query protocol): DescribeStacks (outputs given at construction or by putStack).
 * - API Gateway (REST-JSON): CreateApiKey, GetApiKeys, GetApiKey, UpdateApiKey (patch /enabled, /name,
 *   /description), DeleteApiKey, GetUsagePlans, GetUsagePlan, CreateUsagePlanKey, GetUsagePlanKeys, GetUsagePlanKey,
 *   DeleteUsagePlanKey. Key values are unique, as on AWS; deleting a key removes it from its usage plans.
 * - SES v1 (query protocol): CreateReceiptRuleSet, DeleteReceiptRuleSet (refused while active), ListReceiptRuleSets,
 *   DescribeActiveReceiptRuleSet, SetActiveReceiptRuleSet (without a name: none active).
 * - KMS (JSON 1.1): Encrypt, Decrypt (AES-256-GCM under a per-key secret made here, bound to the EncryptionContext,
 *   so a ciphertext opens only with its context and its key, as with KMS).
 *
 * Each call is identified by the credential scope of its SigV4 Authorization header (service, access key id; the
 * signature is not verified) and passed to `authorize`, if given, as { service, action, operation, resource,
 * accessKeyId } with `action` the IAM action (`cloudformation:DescribeStacks`, `apigateway:POST`,
 * `ses:SetActiveReceiptRuleSet`, `kms:Decrypt`) and `resource` the ARN IAM evaluates. A denial is answered as that
 * service answers one (AccessDenied / AccessDeniedException, HTTP 403 or KMS's 400), its message naming the caller,
 * action and resource. Every call, allowed or not, is kept in calls().
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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

export interface Decision {
  allowed: boolean;
  reason?: string;
}

export interface UsagePlanSpec {
  id: string;
  name: string;
  description?: string;
  apiStages?: { apiId: string; stage: string }[];
  throttle?: { burstLimit?: number; rateLimit?: number };
  quota?: { limit: number; offset?: number; period: 'DAY' | 'WEEK' | 'MONTH' };
}

export interface ControlPlaneOptions {
  /** Loopback only; default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  region?: string;
  accountId?: string;
  /** CloudFormation stacks by name, each with its outputs (OutputKey → OutputValue). */
  stacks?: Record<string, Record<string, string>>;
  usagePlans?: UsagePlanSpec[];
  /** SES receipt rule sets that exist (CloudFormation made them); `activeRuleSet` is one of them or none. */
  ruleSets?: string[];
  activeRuleSet?: string;
  /** KMS key ids (or key ARNs) that exist. */
  kmsKeys?: string[];
  /** May answer asynchronously (an IAM policy evaluator does). */
  authorize?: (call: ControlPlaneCall) => Decision | Promise<Decision>;
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

export interface UsagePlanKeyState {
  usagePlanId: string;
  keyId: string;
  /** The key's value (API Gateway matches usageIdentifierKey against it). */
  value: string;
  name: string;
}

export interface RecordedCall extends ControlPlaneCall {
  allowed: boolean;
  reason?: string;
}

export interface ControlPlane {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  /** The variables that point the SDK v3 clients of these four services at this server. */
  endpointEnv(): Record<string, string>;
  putStack(name: string, outputs: Record<string, string>): void;
  apiKeys(): ApiKeyState[];
  usagePlans(): UsagePlanSpec[];
  /** Keys attached to usage plans (all plans, or one). */
  usagePlanKeys(usagePlanId?: string): UsagePlanKeyState[];
  ruleSets(): string[];
  /** The account's active receipt rule set, or undefined when none is. */
  activeRuleSet(): string | undefined;
  calls(): RecordedCall[];
  close(): Promise<void>;
}

/** An error answered in the service's own shape. */
class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** {a: 'x', b: ['y']} → <a>x</a><b><member>y</member></b>; undefined members are left out. */
type Xml = string | number | boolean | Date | undefined | Xml[] | { [key: string]: Xml };
function toXml(value: Xml): string {
  if (value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => `<member>${toXml(v)}</member>`).join('');
  if (typeof value === 'object')
    return Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `<${k}>${toXml(v)}</${k}>`)
      .join('');
  return xmlEscape(String(value));
}

const QUERY_NAMESPACES = { cloudformation: 'http://cloudformation.amazonaws.com/doc/2010-05-15/', ses: 'http://ses.amazonaws.com/doc/2010-12-01/' };

/** `AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/ses/aws4_request, …` → its access key id and service. */
function credentialScope(authorization: string | undefined): { accessKeyId?: string; service?: string } {
  const match = /Credential=([^/,\s]+)\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/.exec(authorization ?? '');
  return match ? { accessKeyId: match[1], service: match[2] } : {};
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const region = options.region ?? 'us-east-1';
  const account = options.accountId ?? '000000000000';
  const stacks = new Map<string, { id: string; created: Date; outputs: Record<string, string> }>();
  const putStack = (name: string, outputs: Record<string, string>) =>
    stacks.set(name, { id: `arn:aws:cloudformation:${region}:${account}:stack/${name}/${randomUUID()}`, created: new Date(), outputs: { ...outputs } });
  for (const [name, outputs] of Object.entries(options.stacks ?? {})) putStack(name, outputs);
  const apiKeys = new Map<string, ApiKeyState>();
  const plans = new Map((options.usagePlans ?? []).map((p) => [p.id, structuredClone(p)]));
  const planKeys = new Map<string, Set<string>>([...plans.keys()].map((id) => [id, new Set<string>()]));
  const ruleSets = new Map((options.ruleSets ?? []).map((name) => [name, new Date()]));
  let active = options.activeRuleSet;
  if (active !== undefined && !ruleSets.has(active)) throw new Error(`activeRuleSet ${active} is not one of ruleSets`);
  const keyId = (idOrArn: string) => idOrArn.replace(/^arn:aws:kms:[^:]*:[^:]*:key\//, '');
  const kmsKeys = new Map((options.kmsKeys ?? []).map((k) => [keyId(k), randomBytes(32)]));
  const recorded: RecordedCall[] = [];

  const check = async (call: ControlPlaneCall) => {
    const decision = (await options.authorize?.(call)) ?? { allowed: true };
    recorded.push({ ...call, allowed: decision.allowed, reason: decision.reason });
    if (!decision.allowed) {
      const who = call.accessKeyId ?? 'an unsigned caller';
      const message = `User: ${who} is not authorized to perform: ${call.action} on resource: ${call.resource}${decision.reason ? ` (${decision.reason})` : ''}`;
      throw new ServiceError(call.service === 'kms' ? 400 : 403, call.service === 'apigateway' || call.service === 'kms' ? 'AccessDeniedException' : 'AccessDenied', message);
    }
  };

  // ---- CloudFormation and SES: the query protocol (form-encoded Action=…, XML answers) ----
  async function cloudFormation(operation: string, params: URLSearchParams, accessKeyId?: string): Promise<Xml> {
    if (operation !== 'DescribeStacks') throw new ServiceError(400, 'InvalidAction', `${operation} is not answered by this stand-in`);
    const wanted = params.get('StackName');
    const entries = [...stacks.entries()].filter(([name, s]) => !wanted || wanted === name || wanted === s.id);
    const resource = entries.length === 1 ? entries[0][1].id : `arn:aws:cloudformation:${region}:${account}:stack/${wanted ?? '*'}/*`;
    await check({ service: 'cloudformation', action: 'cloudformation:DescribeStacks', operation, resource, accessKeyId });
    if (wanted && entries.length === 0) throw new ServiceError(400, 'ValidationError', `Stack with id ${wanted} does not exist`);
    return {
      Stacks: entries.map(([name, s]) => ({
        StackId: s.id,
        StackName: name,
        CreationTime: s.created,
        StackStatus: 'CREATE_COMPLETE',
        Outputs: Object.entries(s.outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
      })),
    };
  }

  async function ses(operation: string, params: URLSearchParams, accessKeyId?: string): Promise<Xml> {
    const known = ['CreateReceiptRuleSet', 'DeleteReceiptRuleSet', 'ListReceiptRuleSets', 'DescribeActiveReceiptRuleSet', 'SetActiveReceiptRuleSet'];
    if (!known.includes(operation)) throw new ServiceError(400, 'InvalidAction', `${operation} is not answered by this stand-in`);
    // SES's receipt-rule-set actions have no resource type: IAM evaluates them on *.
    await check({ service: 'ses', action: `ses:${operation}`, operation, resource: '*', accessKeyId });
    const name = params.get('RuleSetName') ?? undefined;
    const mustExist = (n: string) => {
      if (!ruleSets.has(n)) throw new ServiceError(400, 'RuleSetDoesNotExist', `Rule set does not exist: ${n}`);
    };
    switch (operation) {
      case 'CreateReceiptRuleSet':
        if (!name) throw new ServiceError(400, 'ValidationError', 'RuleSetName is required');
        if (ruleSets.has(name)) throw new ServiceError(400, 'AlreadyExists', `Rule set already exists: ${name}`);
        ruleSets.set(name, new Date());
        return {};
      case 'DeleteReceiptRuleSet':
        if (!name) throw new ServiceError(400, 'ValidationError', 'RuleSetName is required');
        if (name === active) throw new ServiceError(400, 'CannotDelete', `Cannot delete active rule set: ${name}`);
        ruleSets.delete(name);
        return {};
      case 'ListReceiptRuleSets':
        return { RuleSets: [...ruleSets].map(([Name, CreatedTimestamp]) => ({ Name, CreatedTimestamp })) };
      case 'DescribeActiveReceiptRuleSet':
        return active === undefined ? {} : { Metadata: { Name: active, CreatedTimestamp: ruleSets.get(active) }, Rules: [] };
      default: // SetActiveReceiptRuleSet
        if (name !== undefined) mustExist(name);
        active = name;
        return {};
    }
  }

  // ---- API Gateway: REST-JSON ----
  const apiKeyJson = (k: ApiKeyState, withValue: boolean) => ({
    id: k.id,
    name: k.name,
    description: k.description,
    enabled: k.enabled,
    createdDate: k.createdDate.getTime() / 1000,
    lastUpdatedDate: k.lastUpdatedDate.getTime() / 1000,
    stageKeys: [],
    ...(withValue ? { value: k.value } : {}),
  });
  const planKeyJson = (k: ApiKeyState) => ({ id: k.id, type: 'API_KEY', name: k.name, value: k.value });
  const needKey = (id: string) => {
    const key = apiKeys.get(id);
    if (!key) throw new ServiceError(404, 'NotFoundException', 'Invalid API Key identifier specified');
    return key;
  };
  const needPlan = (id: string) => {
    const plan = plans.get(id);
    if (!plan) throw new ServiceError(404, 'NotFoundException', 'Invalid Usage Plan ID specified');
    return plan;
  };
  const newId = () => randomBytes(5).toString('hex');

  async function apiGateway(method: string, url: URL, body: string, accessKeyId?: string): Promise<{ status: number; json?: unknown }> {
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const route = `${method} /${parts.map((p, i) => (i % 2 === 1 ? '{}' : p)).join('/')}`;
    const operations: Record<string, string> = {
      'POST /apikeys': 'CreateApiKey',
      'GET /apikeys': 'GetApiKeys',
      'GET /apikeys/{}': 'GetApiKey',
      'PATCH /apikeys/{}': 'UpdateApiKey',
      'DELETE /apikeys/{}': 'DeleteApiKey',
      'GET /usageplans': 'GetUsagePlans',
      'GET /usageplans/{}': 'GetUsagePlan',
      'POST /usageplans/{}/keys': 'CreateUsagePlanKey',
      'GET /usageplans/{}/keys': 'GetUsagePlanKeys',
      'GET /usageplans/{}/keys/{}': 'GetUsagePlanKey',
      'DELETE /usageplans/{}/keys/{}': 'DeleteUsagePlanKey',
    };
    const operation = operations[route];
    if (!operation) throw new ServiceError(404, 'NotFoundException', `${method} ${url.pathname} is not answered by this stand-in`);
    // API Gateway's IAM actions are the HTTP method; the resource is the path (arn:aws:apigateway:region::/apikeys/id).
    await check({ service: 'apigateway', action: `apigateway:${method}`, operation, resource: `arn:aws:apigateway:${region}::${url.pathname}`, accessKeyId });
    const input = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    const [, id, , sub] = parts;
    switch (operation) {
      case 'CreateApiKey': {
        const value = typeof input.value === 'string' && input.value ? input.value : randomBytes(20).toString('base64url');
        if (value.length < 20) throw new ServiceError(400, 'BadRequestException', 'API Key value should be at least 20 characters');
        if ([...apiKeys.values()].some((k) => k.value === value)) throw new ServiceError(409, 'ConflictException', 'API Key already exists');
        const now = new Date();
        const key: ApiKeyState = {
          id: newId(),
          name: typeof input.name === 'string' ? input.name : '',
          description: typeof input.description === 'string' ? input.description : undefined,
          value,
          enabled: input.enabled === true,
          createdDate: now,
          lastUpdatedDate: now,
        };
        apiKeys.set(key.id, key);
        return { status: 201, json: apiKeyJson(key, true) };
      }
      case 'GetApiKeys': {
        const nameQuery = url.searchParams.get('name');
        const withValues = url.searchParams.get('includeValues') === 'true';
        const items = [...apiKeys.values()].filter((k) => !nameQuery || k.name.startsWith(nameQuery));
        return { status: 200, json: { item: items.map((k) => apiKeyJson(k, withValues)) } };
      }
      case 'GetApiKey':
        return { status: 200, json: apiKeyJson(needKey(id), url.searchParams.get('includeValue') === 'true') };
      case 'UpdateApiKey': {
        const key = needKey(id);
        for (const op of (input.patchOperations ?? []) as { op: string; path: string; value?: string }[]) {
          if (op.op !== 'replace') throw new ServiceError(400, 'BadRequestException', `Invalid patch operation specified. Must be 'replace'`);
          if (op.path === '/enabled') key.enabled = op.value === 'true';
          else if (op.path === '/name') key.name = op.value ?? '';
          else if (op.path === '/description') key.description = op.value;
          else throw new ServiceError(400, 'BadRequestException', `Invalid patch path ${op.path}`);
        }
        key.lastUpdatedDate = new Date();
        return { status: 200, json: apiKeyJson(key, false) };
      }
      case 'DeleteApiKey':
        needKey(id);
        apiKeys.delete(id);
        for (const keys of planKeys.values()) keys.delete(id);
        return { status: 202 };
      case 'GetUsagePlans': {
        const keyFilter = url.searchParams.get('keyId');
        const items = [...plans.values()].filter((p) => !keyFilter || planKeys.get(p.id)!.has(keyFilter));
        return { status: 200, json: { item: items } };
      }
      case 'GetUsagePlan':
        return { status: 200, json: needPlan(id) };
      case 'CreateUsagePlanKey': {
        const plan = needPlan(id);
        if (input.keyType !== 'API_KEY') throw new ServiceError(400, 'BadRequestException', 'Invalid key type specified');
        const key = needKey(String(input.keyId));
        const members = planKeys.get(plan.id)!;
        if (members.has(key.id)) throw new ServiceError(409, 'ConflictException', `Usage Plan ${plan.id} already has API Key ${key.id}`);
        // As on AWS: a key may not be in two plans that cover the same API stage.
        const stages = new Set((plan.apiStages ?? []).map((s) => `${s.apiId}/${s.stage}`));
        for (const [otherId, otherKeys] of planKeys) {
          if (otherId !== plan.id && otherKeys.has(key.id) && (plans.get(otherId)!.apiStages ?? []).some((s) => stages.has(`${s.apiId}/${s.stage}`)))
            throw new ServiceError(409, 'ConflictException', `API Key ${key.id} cannot reference multiple Usage Plans with the same API Stage`);
        }
        members.add(key.id);
        return { status: 201, json: planKeyJson(key) };
      }
      case 'GetUsagePlanKeys':
        needPlan(id);
        return { status: 200, json: { item: [...planKeys.get(id)!].map((k) => planKeyJson(apiKeys.get(k)!)) } };
      case 'GetUsagePlanKey': {
        needPlan(id);
        if (!planKeys.get(id)!.has(sub)) throw new ServiceError(404, 'NotFoundException', 'Invalid Usage Plan Key identifier specified');
        return { status: 200, json: planKeyJson(needKey(sub)) };
      }
      default: {
        // DeleteUsagePlanKey
        needPlan(id);
        if (!planKeys.get(id)!.delete(sub)) throw new ServiceError(404, 'NotFoundException', 'Invalid Usage Plan Key identifier specified');
        return { status: 202 };
      }
    }
  }

  // ---- KMS: JSON 1.1 ----
  const sortedContext = (context: unknown) => Buffer.from(JSON.stringify(Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => a.localeCompare(b))));
  async function kms(operation: string, input: Record<string, unknown>, accessKeyId?: string): Promise<unknown> {
    if (operation !== 'Encrypt' && operation !== 'Decrypt') throw new ServiceError(400, 'UnsupportedOperationException', `${operation} is not answered by this stand-in`);
    let id = typeof input.KeyId === 'string' ? keyId(input.KeyId) : undefined;
    let sealed: { iv: Buffer; data: Buffer; tag: Buffer } | undefined;
    if (operation === 'Decrypt') {
      // The blob names its key, as KMS's does; a KeyId given must be the same key.
      const blob = Buffer.from(String(input.CiphertextBlob ?? ''), 'base64');
      const idLength = blob[0] ?? 0;
      const blobKey = blob.subarray(1, 1 + idLength).toString('utf8');
      if (!blobKey || blob.length < 1 + idLength + 28 || (id !== undefined && id !== blobKey)) throw new ServiceError(400, 'InvalidCiphertextException', 'The ciphertext is invalid');
      id = blobKey;
      const rest = blob.subarray(1 + idLength);
      sealed = { iv: rest.subarray(0, 12), tag: rest.subarray(rest.length - 16), data: rest.subarray(12, rest.length - 16) };
    }
    if (!id) throw new ServiceError(400, 'ValidationException', 'KeyId is required');
    const arn = `arn:aws:kms:${region}:${account}:key/${id}`;
    await check({ service: 'kms', action: `kms:${operation}`, operation, resource: arn, accessKeyId });
    const secret = kmsKeys.get(id);
    if (!secret) throw new ServiceError(400, 'NotFoundException', `Key '${arn}' does not exist`);
    const aad = sortedContext(input.EncryptionContext);
    if (operation === 'Encrypt') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', secret, iv).setAAD(aad);
      const data = Buffer.concat([cipher.update(Buffer.from(String(input.Plaintext ?? ''), 'base64')), cipher.final()]);
      const idBytes = Buffer.from(id, 'utf8');
      const blob = Buffer.concat([Buffer.from([idBytes.length]), idBytes, iv, data, cipher.getAuthTag()]);
      return { CiphertextBlob: blob.toString('base64'), KeyId: arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', secret, sealed!.iv).setAAD(aad);
      decipher.setAuthTag(sealed!.tag);
      const plain = Buffer.concat([decipher.update(sealed!.data), decipher.final()]);
      return { Plaintext: plain.toString('base64'), KeyId: arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    } catch {
      throw new ServiceError(400, 'InvalidCiphertextException', 'The ciphertext or its encryption context is invalid');
    }
  }

  // ---- dispatch ----
  const requestId = () => randomUUID();
  async function answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const scope = credentialScope(req.headers.authorization);
    const target = req.headers['x-amz-target'];
    const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(body) : undefined;
    const service: ControlPlaneService | undefined =
      (scope.service as ControlPlaneService | undefined) ??
      (typeof target === 'string' && target.startsWith('TrentService.') ? 'kms' : form?.get('Version') === '2010-05-15' ? 'cloudformation' : form?.get('Version') === '2010-12-01' ? 'ses' : 'apigateway');
    const id = requestId();
    if (service === 'cloudformation' || service === 'ses') {
      const operation = form?.get('Action') ?? '';
      try {
        const result = await (service === 'ses' ? ses : cloudFormation)(operation, form ?? new URLSearchParams(), scope.accessKeyId);
        const xml = `<?xml version="1.0"?><${operation}Response xmlns="${QUERY_NAMESPACES[service]}"><${operation}Result>${toXml(result)}</${operation}Result><ResponseMetadata><RequestId>${id}</RequestId></ResponseMetadata></${operation}Response>`;
        res.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': id }).end(xml);
      } catch (error) {
        const e = error instanceof ServiceError ? error : new ServiceError(500, 'InternalFailure', (error as Error).message);
        const xml = `<?xml version="1.0"?><ErrorResponse xmlns="${QUERY_NAMESPACES[service]}"><Error><Type>${e.status < 500 ? 'Sender' : 'Receiver'}</Type><Code>${xmlEscape(e.code)}</Code><Message>${xmlEscape(e.message)}</Message></Error><RequestId>${id}</RequestId></ErrorResponse>`;
        res.writeHead(e.status, { 'content-type': 'text/xml', 'x-amzn-requestid': id }).end(xml);
      }
      return;
    }
    if (service === 'kms') {
      try {
        const operation = typeof target === 'string' ? target.replace(/^TrentService\./, '') : '';
        const out = await kms(operation, body ? (JSON.parse(body) as Record<string, unknown>) : {}, scope.accessKeyId);
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': id }).end(JSON.stringify(out));
      } catch (error) {
        const e = error instanceof ServiceError ? error : new ServiceError(500, 'KMSInternalException', (error as Error).message);
        res.writeHead(e.status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': id }).end(JSON.stringify({ __type: e.code, message: e.message }));
      }
      return;
    }
    if (service === 'apigateway') {
      try {
        const out = await apiGateway(req.method ?? 'GET', new URL(req.url ?? '/', 'http://control-plane'), body, scope.accessKeyId);
        res.writeHead(out.status, { 'content-type': 'application/json', 'x-amzn-requestid': id }).end(out.json === undefined ? '' : JSON.stringify(out.json));
      } catch (error) {
        const e = error instanceof ServiceError ? error : new ServiceError(500, 'InternalFailure', (error as Error).message);
        res.writeHead(e.status, { 'content-type': 'application/json', 'x-amzn-errortype': e.code, 'x-amzn-requestid': id }).end(JSON.stringify({ message: e.message }));
      }
      return;
    }
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `service ${service} is not answered by this stand-in` }));
  }

  const server = http.createServer((req, res) => {
    answer(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: (error as Error).message }));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const endpoint = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    endpoint,
    endpointEnv: () => ({
      AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint,
      AWS_ENDPOINT_URL_API_GATEWAY: endpoint,
      AWS_ENDPOINT_URL_SES: endpoint,
      AWS_ENDPOINT_URL_KMS: endpoint,
    }),
    putStack,
    apiKeys: () => [...apiKeys.values()].map((k) => ({ ...k })),
    usagePlans: () => [...plans.values()].map((p) => structuredClone(p)),
    usagePlanKeys: (usagePlanId) =>
      [...planKeys]
        .filter(([planId]) => !usagePlanId || planId === usagePlanId)
        .flatMap(([planId, keys]) => [...keys].map((k) => ({ usagePlanId: planId, keyId: k, value: apiKeys.get(k)!.value, name: apiKeys.get(k)!.name }))),
    ruleSets: () => [...ruleSets.keys()],
    activeRuleSet: () => active,
    calls: () => recorded.map((c) => ({ ...c })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
