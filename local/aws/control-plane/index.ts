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
 * Services and operations answered, one module each (this one is the server, the state and the dispatch):
 * - CloudFormation (query protocol): DescribeStacks (outputs given at construction or by putStack) (query.ts).
 * - API Gateway (REST-JSON): CreateApiKey, GetApiKeys, GetApiKey, UpdateApiKey (patch /enabled, /name,
 *   /description), DeleteApiKey, GetUsagePlans, GetUsagePlan, CreateUsagePlanKey, GetUsagePlanKeys, GetUsagePlanKey,
 *   DeleteUsagePlanKey. Key values are unique, as on AWS; deleting a key removes it from its usage plans (api-keys.ts).
 * - SES v1 (query protocol): CreateReceiptRuleSet, DeleteReceiptRuleSet (refused while active), ListReceiptRuleSets,
 *   DescribeActiveReceiptRuleSet, SetActiveReceiptRuleSet (without a name: none active) (query.ts).
 * - KMS (JSON 1.1): Encrypt, Decrypt (AES-256-GCM under a per-key secret made here, bound to the EncryptionContext,
 *   so a ciphertext opens only with its context and its key, as with KMS) (kms.ts).
 *
 * Each call is identified by the credential scope of its SigV4 Authorization header (service, access key id; the
 * signature is not verified) and passed to `authorize`, if given, as { service, action, operation, resource,
 * accessKeyId } with `action` the IAM action (`cloudformation:DescribeStacks`, `apigateway:POST`,
 * `ses:SetActiveReceiptRuleSet`, `kms:Decrypt`) and `resource` the ARN IAM evaluates. A denial is answered as that
 * service answers one (AccessDenied / AccessDeniedException, HTTP 403 or KMS's 400), its message naming the caller,
 * action and resource. Every call, allowed or not, is kept in calls().
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiGateway } from './api-keys';
import { kms } from './kms';
import { cloudFormation, QUERY_NAMESPACES, ses, toXml, xmlEscape } from './query';
import { kmsKeyId, ServiceError, type ApiKeyState, type Check, type ControlPlaneCall, type ControlPlaneService, type ControlPlaneState, type UsagePlanSpec } from './state';

export type { ApiKeyState, ControlPlaneCall, ControlPlaneService, UsagePlanSpec } from './state';

export interface Decision {
  allowed: boolean;
  reason?: string;
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

/** `AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/ses/aws4_request, …` → its access key id and service. */
function credentialScope(authorization: string | undefined): { accessKeyId?: string; service?: string } {
  const match = /Credential=([^/,\s]+)\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/.exec(authorization ?? '');
  return match ? { accessKeyId: match[1], service: match[2] } : {};
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const region = options.region ?? 'us-east-1';
  const account = options.accountId ?? '000000000000';
  const state: ControlPlaneState = {
    region,
    account,
    stacks: new Map(),
    apiKeys: new Map(),
    plans: new Map((options.usagePlans ?? []).map((p) => [p.id, structuredClone(p)])),
    planKeys: new Map((options.usagePlans ?? []).map((p) => [p.id, new Set<string>()])),
    ruleSets: new Map((options.ruleSets ?? []).map((name) => [name, new Date()])),
    activeRuleSet: options.activeRuleSet,
    kmsKeys: new Map((options.kmsKeys ?? []).map((k) => [kmsKeyId(k), randomBytes(32)])),
  };
  const { stacks, apiKeys, plans, planKeys, ruleSets } = state;
  const putStack = (name: string, outputs: Record<string, string>) =>
    stacks.set(name, { id: `arn:aws:cloudformation:${region}:${account}:stack/${name}/${randomUUID()}`, created: new Date(), outputs: { ...outputs } });
  for (const [name, outputs] of Object.entries(options.stacks ?? {})) putStack(name, outputs);
  if (state.activeRuleSet !== undefined && !ruleSets.has(state.activeRuleSet)) throw new Error(`activeRuleSet ${state.activeRuleSet} is not one of ruleSets`);
  const recorded: RecordedCall[] = [];

  const check: Check = async (call) => {
    const decision = (await options.authorize?.(call)) ?? { allowed: true };
    recorded.push({ ...call, allowed: decision.allowed, reason: decision.reason });
    if (!decision.allowed) {
      const who = call.accessKeyId ?? 'an unsigned caller';
      const message = `User: ${who} is not authorized to perform: ${call.action} on resource: ${call.resource}${decision.reason ? ` (${decision.reason})` : ''}`;
      throw new ServiceError(call.service === 'kms' ? 400 : 403, call.service === 'apigateway' || call.service === 'kms' ? 'AccessDeniedException' : 'AccessDenied', message);
    }
  };

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
        const result = await (service === 'ses' ? ses : cloudFormation)(state, check, operation, form ?? new URLSearchParams(), scope.accessKeyId);
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
        const out = await kms(state, check, operation, body ? (JSON.parse(body) as Record<string, unknown>) : {}, scope.accessKeyId);
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': id }).end(JSON.stringify(out));
      } catch (error) {
        const e = error instanceof ServiceError ? error : new ServiceError(500, 'KMSInternalException', (error as Error).message);
        res.writeHead(e.status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': id }).end(JSON.stringify({ __type: e.code, message: e.message }));
      }
      return;
    }
    if (service === 'apigateway') {
      try {
        const out = await apiGateway(state, check, req.method ?? 'GET', new URL(req.url ?? '/', 'http://control-plane'), body, scope.accessKeyId);
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
    activeRuleSet: () => state.activeRuleSet,
    calls: () => recorded.map((c) => ({ ...c })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
