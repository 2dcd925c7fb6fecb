/**
 * API Gateway (REST API) for `npm run start:aws`, built from the template's AWS::ApiGateway::* resources alone: the
 * resource tree and its methods (path templates, AWS_PROXY integrations to the template's functions, MOCK
 * integrations with their integration responses), the REQUEST authorizer (identity sources, result TTL cache, the
 * policy it returns evaluated against the method ARN), API keys checked against usage plans (key source HEADER or
 * AUTHORIZER) with the plans' throttles and quotas and their per-method throttles, the stage's method throttles, the
 * gateway responses the template defines (else API Gateway's own), the integration timeout (29 s unless the method
 * says less), the 10 MB request and Lambda's 6 MB response limits, binary media types and the minimum compression
 * size. The stage is served at the root of PORT on loopback (as behind a custom domain's base-path mapping).
 *
 * What AWS answers that this one does not: resource policies, request validators, non-proxy AWS/HTTP integrations,
 * VTL mapping templates beyond static bodies, WAF, account-level throttles (10,000 requests/s).
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { FunctionRunner, InvokeOutcome } from './functions';
import { InvokePermissions } from './invoke-permissions';
import type { LocalStackModel } from './template';
import type { Dict } from './cfn-json';
import { Bucket, methodSettingPath, throttleOf, type Throttle } from './throttles';

const API_GATEWAY_PRINCIPAL = 'apigateway.amazonaws.com';

/** API Gateway's REST integration timeout, and its request payload limit. */
export const INTEGRATION_TIMEOUT_MS = 29_000;
export const REQUEST_LIMIT_BYTES = 10 * 1024 * 1024;


interface MethodModel {
  logicalId: string;
  httpMethod: string;
  authorizationType: string;
  authorizerId?: string;
  apiKeyRequired: boolean;
  integration: { type: 'AWS_PROXY'; functionLogicalId: string; timeoutMs: number } | { type: 'MOCK'; requestTemplates: Dict; responses: Dict[] } | { type: 'UNSUPPORTED'; description: string };
}

interface ResourceNode {
  path: string;
  part: string;
  children: ResourceNode[];
  methods: Map<string, MethodModel>;
}

interface AuthorizerModel {
  id: string;
  type: string;
  functionLogicalId: string;
  identitySources: string[];
  ttlSeconds: number;
}

interface GatewayResponseModel {
  status?: number;
  templates: Dict;
  headers: Record<string, string>;
}

export interface UsagePlanModel {
  id: string;
  throttle?: Throttle;
  quota?: { limit: number; period: 'DAY' | 'WEEK' | 'MONTH'; offset: number };
  /** "resourcePath/METHOD" → throttle, for this API's stage. */
  methodThrottles: Map<string, Throttle>;
  /** Covers this API's stage. */
  coversStage: boolean;
}

/** API Gateway's own statuses and bodies for the gateway responses, used when the template defines none. */
const DEFAULT_RESPONSES: Record<string, { status: number; message: string }> = {
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  INVALID_API_KEY: { status: 403, message: 'Forbidden' },
  ACCESS_DENIED: { status: 403, message: 'User is not authorized to access this resource' },
  MISSING_AUTHENTICATION_TOKEN: { status: 403, message: 'Missing Authentication Token' },
  THROTTLED: { status: 429, message: 'Too Many Requests' },
  QUOTA_EXCEEDED: { status: 429, message: 'Limit Exceeded' },
  REQUEST_TOO_LARGE: { status: 413, message: 'Request Too Long' },
  AUTHORIZER_FAILURE: { status: 500, message: null as unknown as string },
  AUTHORIZER_CONFIGURATION_ERROR: { status: 500, message: null as unknown as string },
  API_CONFIGURATION_ERROR: { status: 500, message: 'Internal server error' },
  INTEGRATION_FAILURE: { status: 500, message: 'Internal server error' },
  INTEGRATION_TIMEOUT: { status: 504, message: 'Endpoint request timed out' },
  BAD_GATEWAY: { status: 502, message: 'Internal server error' },
};

/** Where API keys and their usage plans come from (the control-plane stand-in the CLI writes to). */
export interface ApiKeySource {
  /** The enabled key with this value, and the ids of the usage plans it belongs to. */
  keyByValue(value: string): { id: string; enabled: boolean; usagePlanIds: string[] } | undefined;
}

export interface ApiGatewayOptions {
  model: LocalStackModel;
  functions: FunctionRunner;
  keys: ApiKeySource;
  host: string;
  port: number;
  /** Overrides the authorizer's result TTL (TEMPMAIL_AUTHORIZER_CACHE_SECONDS); default: the template's. */
  authorizerCacheSeconds?: number;
  log: (line: string) => void;
}

export class TemplateApiGateway {
  readonly restApiLogicalId: string;
  readonly restApiId: string;
  readonly stageName: string;
  private readonly root: ResourceNode;
  private readonly keySource: 'HEADER' | 'AUTHORIZER';
  private readonly binaryMediaTypes: string[];
  private readonly minimumCompressionSize?: number;
  private readonly authorizers = new Map<string, AuthorizerModel>();
  private readonly responses = new Map<string, GatewayResponseModel>();
  readonly usagePlans: UsagePlanModel[] = [];
  private readonly stageThrottles: { resourcePath: string; method: string; throttle: Throttle }[] = [];
  private readonly buckets = new Map<string, Bucket>();
  private readonly quotas = new Map<string, { window: number; used: number }>();
  private readonly authorizerCache = new Map<string, { result: Dict; until: number }>();
  /** The functions' resource policies: API Gateway may invoke only what an AWS::Lambda::Permission lets it. */
  private readonly permissions: InvokePermissions;
  private server?: http.Server;

  constructor(private readonly options: ApiGatewayOptions) {
    const { model } = options;
    this.permissions = new InvokePermissions(model);
    const apis = model.resources('AWS::ApiGateway::RestApi');
    if (apis.length !== 1) throw new Error(`the template has ${apis.length} REST APIs; the local gateway serves exactly one`);
    const [apiId, api] = apis[0];
    this.restApiLogicalId = apiId;
    this.restApiId = String(model.ref(apiId));
    const apiProps = (model.resolve(api.Properties ?? {}) ?? {}) as Dict;
    this.keySource = apiProps.ApiKeySourceType === 'AUTHORIZER' ? 'AUTHORIZER' : 'HEADER';
    this.binaryMediaTypes = (apiProps.BinaryMediaTypes ?? []).map((t: string) => t.replace('~1', '/'));
    this.minimumCompressionSize = apiProps.MinimumCompressionSize === undefined ? undefined : Number(apiProps.MinimumCompressionSize);

    const stages = model.resources('AWS::ApiGateway::Stage').filter(([, r]) => JSON.stringify(r.Properties?.RestApiId) === JSON.stringify({ Ref: apiId }));
    if (stages.length !== 1) throw new Error(`the REST API ${apiId} has ${stages.length} stages; the local gateway serves exactly one`);
    const stage = model.resolve(stages[0][1].Properties ?? {}) as Dict;
    this.stageName = String(stage.StageName);
    for (const setting of (stage.MethodSettings ?? []) as Dict[]) {
      const throttle = throttleOf({ RateLimit: setting.ThrottlingRateLimit, BurstLimit: setting.ThrottlingBurstLimit });
      if (!throttle) continue;
      this.stageThrottles.push({ resourcePath: methodSettingPath(String(setting.ResourcePath ?? '/*')), method: String(setting.HttpMethod ?? '*'), throttle });
    }

    // The resource tree: the root, then each AWS::ApiGateway::Resource under its parent.
    const rootId = String(model.getAtt(apiId, 'RootResourceId'));
    this.root = { path: '/', part: '', children: [], methods: new Map() };
    const nodes = new Map<string, ResourceNode>([[rootId, this.root]]);
    const pending = model.resources('AWS::ApiGateway::Resource').map(([id, r]) => ({ id, props: model.resolve(r.Properties ?? {}) as Dict }));
    while (pending.length) {
      const i = pending.findIndex((p) => nodes.has(String(p.props.ParentId)));
      if (i < 0) throw new Error(`API resources without a parent in the template: ${pending.map((p) => p.id).join(', ')}`);
      const [{ id, props }] = pending.splice(i, 1);
      const parent = nodes.get(String(props.ParentId))!;
      const node: ResourceNode = { path: `${parent.path === '/' ? '' : parent.path}/${props.PathPart}`, part: String(props.PathPart), children: [], methods: new Map() };
      parent.children.push(node);
      nodes.set(String(model.ref(id)), node);
    }

    for (const [id, r] of model.resources('AWS::ApiGateway::Authorizer')) {
      const p = model.resolve(r.Properties ?? {}) as Dict;
      const fn = this.functionOfUri(String(p.AuthorizerUri));
      this.authorizers.set(String(model.ref(id)), {
        id,
        type: String(p.Type),
        functionLogicalId: fn,
        identitySources: String(p.IdentitySource ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        ttlSeconds: options.authorizerCacheSeconds ?? Number(p.AuthorizerResultTtlInSeconds ?? 300),
      });
    }

    for (const [id, r] of model.resources('AWS::ApiGateway::Method')) {
      const p = model.resolve(r.Properties ?? {}) as Dict;
      const node = nodes.get(String(p.ResourceId));
      if (!node) throw new Error(`method ${id} is on a resource the template does not define`);
      const integration = (p.Integration ?? {}) as Dict;
      let modelIntegration: MethodModel['integration'];
      if (integration.Type === 'AWS_PROXY') {
        modelIntegration = { type: 'AWS_PROXY', functionLogicalId: this.functionOfUri(String(integration.Uri)), timeoutMs: Number(integration.TimeoutInMillis ?? INTEGRATION_TIMEOUT_MS) };
      } else if (integration.Type === 'MOCK') {
        modelIntegration = { type: 'MOCK', requestTemplates: integration.RequestTemplates ?? {}, responses: integration.IntegrationResponses ?? [] };
      } else {
        modelIntegration = { type: 'UNSUPPORTED', description: `integration type ${integration.Type}` };
      }
      node.methods.set(String(p.HttpMethod).toUpperCase(), {
        logicalId: id,
        httpMethod: String(p.HttpMethod).toUpperCase(),
        authorizationType: String(p.AuthorizationType ?? 'NONE'),
        authorizerId: p.AuthorizerId === undefined ? undefined : String(p.AuthorizerId),
        apiKeyRequired: p.ApiKeyRequired === true || p.ApiKeyRequired === 'true',
        integration: modelIntegration,
      });
    }

    for (const [, r] of model.resources('AWS::ApiGateway::GatewayResponse')) {
      const p = model.resolve(r.Properties ?? {}) as Dict;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries((p.ResponseParameters ?? {}) as Record<string, string>)) {
        const header = name.replace(/^gatewayresponse\.header\./, '');
        headers[header] = String(value).replace(/^'(.*)'$/s, '$1');
      }
      this.responses.set(String(p.ResponseType), { status: p.StatusCode === undefined ? undefined : Number(p.StatusCode), templates: p.ResponseTemplates ?? {}, headers });
    }

    for (const [id, r] of model.resources('AWS::ApiGateway::UsagePlan')) {
      const p = model.resolve(r.Properties ?? {}) as Dict;
      const stageOfApi = ((p.ApiStages ?? []) as Dict[]).find((s) => String(s.ApiId) === this.restApiId && String(s.Stage) === this.stageName);
      const methodThrottles = new Map<string, Throttle>();
      for (const [key, t] of Object.entries((stageOfApi?.Throttle ?? {}) as Record<string, Dict>)) {
        const throttle = throttleOf(t);
        if (throttle) methodThrottles.set(key, throttle);
      }
      this.usagePlans.push({
        id: String(model.ref(id)),
        throttle: throttleOf(p.Throttle),
        quota: p.Quota?.Limit !== undefined ? { limit: Number(p.Quota.Limit), period: p.Quota.Period, offset: Number(p.Quota.Offset ?? 0) } : undefined,
        methodThrottles,
        coversStage: Boolean(stageOfApi),
      });
    }
  }

  /** arn:aws:apigateway:region:lambda:path/2015-03-31/functions/<function arn>/invocations → the function's logical id. */
  private functionOfUri(uri: string): string {
    const match = /functions\/(.+)\/invocations$/.exec(uri);
    const fn = match ? this.options.model.functionByArn(match[1]) : undefined;
    if (!fn) throw new Error(`integration URI ${uri} names no function of the template`);
    return fn;
  }

  async listen(): Promise<string> {
    this.server = http.createServer({ requestTimeout: 60_000, headersTimeout: 10_000 }, (req, res) => {
      const requestId = randomUUID();
      this.handle(req, requestId)
        .catch((error) => {
          this.options.log(`[api] request ${requestId} failed in the gateway: ${(error as Error).stack ?? error}`);
          return this.gatewayResponse('API_CONFIGURATION_ERROR', requestId);
        })
        .then((reply) => this.send(req, res, reply, requestId));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port, this.options.host, () => resolve());
    });
    return `http://${this.options.host}:${(this.server.address() as { port: number }).port}`;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private send(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply, requestId: string): void {
    const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId, 'x-amz-apigw-id': requestId.slice(0, 16), ...reply.headers };
    let body = reply.body;
    const accepts = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    if (this.minimumCompressionSize !== undefined && accepts && body.length >= this.minimumCompressionSize && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-encoding')) {
      body = gzipSync(body);
      headers['Content-Encoding'] = 'gzip';
    }
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding') delete headers[name];
    res.writeHead(reply.status, { ...headers, 'Content-Length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  /** The gateway response of `type` as the template defines it (else DEFAULT_4XX/5XX, else API Gateway's own). */
  gatewayResponse(type: string, requestId: string, fallbackStatus?: number, extraHeaders: Record<string, string> = {}): Reply {
    const builtIn = DEFAULT_RESPONSES[type] ?? { status: fallbackStatus ?? 500, message: 'Internal server error' };
    const status = fallbackStatus ?? builtIn.status;
    const defined = this.responses.get(type) ?? this.responses.get(status >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX');
    if (!defined) {
      return { status, headers: { 'Content-Type': 'application/json', 'x-amzn-ErrorType': errorTypeHeader(type), ...extraHeaders }, body: Buffer.from(JSON.stringify({ message: builtIn.message })) };
    }
    const template = defined.templates['application/json'] ?? Object.values(defined.templates)[0] ?? JSON.stringify({ message: builtIn.message });
    const body = String(template)
      .replace(/\$context\.requestId/g, requestId)
      .replace(/\$context\.error\.messageString/g, JSON.stringify(builtIn.message))
      .replace(/\$context\.error\.message/g, String(builtIn.message));
    return { status: defined.status ?? status, headers: { 'x-amzn-ErrorType': errorTypeHeader(type), ...defined.headers, ...extraHeaders }, body: Buffer.from(body) };
  }

  /** The resource whose path template matches, with the path parameters. */
  private match(path: string): { node: ResourceNode; params: Record<string, string> } | undefined {
    const segments = path.split('/').filter(Boolean);
    const walk = (node: ResourceNode, i: number, params: Record<string, string>): { node: ResourceNode; params: Record<string, string> } | undefined => {
      if (i === segments.length) return { node, params };
      const segment = segments[i];
      const exact = node.children.find((c) => c.part === segment);
      if (exact) {
        const found = walk(exact, i + 1, params);
        if (found) return found;
      }
      for (const child of node.children) {
        const param = /^\{(.+?)(\+)?\}$/.exec(child.part);
        if (!param) continue;
        if (param[2]) return { node: child, params: { ...params, [param[1]]: segments.slice(i).map(decodeURIComponent).join('/') } };
        const found = walk(child, i + 1, { ...params, [param[1]]: decodeURIComponent(segment) });
        if (found) return found;
      }
      return undefined;
    };
    return walk(this.root, 0, {});
  }

  private isBinary(contentType: string | undefined): boolean {
    if (!contentType) return false;
    const type = contentType.split(';')[0].trim().toLowerCase();
    return this.binaryMediaTypes.some((t) => t === '*/*' || t.toLowerCase() === type || (t.endsWith('/*') && type.startsWith(t.slice(0, -1).toLowerCase())));
  }

  private async handle(req: http.IncomingMessage, requestId: string): Promise<Reply> {
    const started = Date.now();
    const reply = await this.dispatch(req, requestId);
    this.options.log(`[api] ${req.method} ${(req.url ?? '').split('?')[0]} ${reply.status} ${Date.now() - started}ms`);
    return reply;
  }

  private async dispatch(req: http.IncomingMessage, requestId: string): Promise<Reply> {
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://local');
    } catch {
      return this.gatewayResponse('DEFAULT_4XX', requestId, 400);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size <= REQUEST_LIMIT_BYTES) chunks.push(chunk as Buffer);
    }
    if (size > REQUEST_LIMIT_BYTES) return this.gatewayResponse('REQUEST_TOO_LARGE', requestId);
    const body = Buffer.concat(chunks);

    const matched = this.match(url.pathname);
    const methodModel = matched && (matched.node.methods.get(method) ?? matched.node.methods.get('ANY'));
    if (!matched || !methodModel) return this.gatewayResponse('MISSING_AUTHENTICATION_TOKEN', requestId);
    const { node, params } = matched;

    const headers: Record<string, string> = Object.create(null);
    const multiValueHeaders: Record<string, string[]> = Object.create(null);
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers[req.rawHeaders[i]] = req.rawHeaders[i + 1];
      (multiValueHeaders[req.rawHeaders[i]] ??= []).push(req.rawHeaders[i + 1]);
    }
    const query: Record<string, string> = Object.create(null);
    const multiQuery: Record<string, string[]> = Object.create(null);
    for (const [name, value] of url.searchParams) {
      query[name] = value;
      (multiQuery[name] ??= []).push(value);
    }
    const hasQuery = Object.keys(query).length > 0;
    const header = (name: string) => Object.entries(headers).find(([h]) => h.toLowerCase() === name.toLowerCase())?.[1];
    const methodArn = `arn:aws:execute-api:${this.options.model.region}:${this.options.model.account}:${this.restApiId}/${this.stageName}/${method}${url.pathname}`;
    const sourceIp = req.socket.remoteAddress ?? '127.0.0.1';

    // Authorization: the REQUEST authorizer (cached by its identity sources), then its policy on this method.
    let authorizerContext: Dict | null = null;
    let usageIdentifierKey: string | undefined;
    if (methodModel.authorizationType === 'CUSTOM') {
      const authorizer = methodModel.authorizerId ? this.authorizers.get(methodModel.authorizerId) : undefined;
      if (!authorizer || authorizer.type !== 'REQUEST') return this.gatewayResponse('AUTHORIZER_CONFIGURATION_ERROR', requestId);
      const identity = authorizer.identitySources.map((source) => {
        const h = /^method\.request\.header\.(.+)$/.exec(source);
        const q = /^method\.request\.querystring\.(.+)$/.exec(source);
        return h ? header(h[1]) : q ? query[q[1]] : undefined;
      });
      if (authorizer.ttlSeconds > 0 && identity.some((v) => v === undefined || v === '')) return this.gatewayResponse('UNAUTHORIZED', requestId);
      const cacheKey = `${authorizer.id}\0${createHash('sha256').update(identity.join('\0')).digest('hex')}`;
      const cached = authorizer.ttlSeconds > 0 ? this.authorizerCache.get(cacheKey) : undefined;
      let result: Dict;
      if (cached && cached.until > Date.now()) result = cached.result;
      else {
        const event = {
          type: 'REQUEST',
          methodArn,
          resource: node.path,
          path: url.pathname,
          httpMethod: method,
          headers,
          multiValueHeaders,
          queryStringParameters: hasQuery ? query : {},
          multiValueQueryStringParameters: hasQuery ? multiQuery : {},
          pathParameters: params,
          stageVariables: {},
          requestContext: this.requestContext(node, method, url, requestId, sourceIp, null),
        };
        const refused = this.permissions.refusal(authorizer.functionLogicalId, {
          principal: API_GATEWAY_PRINCIPAL,
          sourceArn: `arn:aws:execute-api:${this.options.model.region}:${this.options.model.account}:${this.restApiId}/authorizers/${methodModel.authorizerId}`,
        });
        if (refused) {
          this.options.log(`[api] Execution failed due to configuration error: Invalid permissions on Lambda function: ${refused}`);
          return this.gatewayResponse('AUTHORIZER_CONFIGURATION_ERROR', requestId);
        }
        const outcome = await this.options.functions.invoke(authorizer.functionLogicalId, event);
        if (!outcome.ok) {
          if (outcome.errorMessage === 'Unauthorized') return this.gatewayResponse('UNAUTHORIZED', requestId);
          return this.gatewayResponse(outcome.throttled ? 'AUTHORIZER_FAILURE' : 'AUTHORIZER_CONFIGURATION_ERROR', requestId);
        }
        result = (outcome.payload ?? {}) as Dict;
        if (typeof result.principalId !== 'string' || !result.policyDocument?.Statement) return this.gatewayResponse('AUTHORIZER_CONFIGURATION_ERROR', requestId);
        if (authorizer.ttlSeconds > 0) this.authorizerCache.set(cacheKey, { result, until: Date.now() + authorizer.ttlSeconds * 1000 });
      }
      if (!policyAllows(result.policyDocument, methodArn)) return this.gatewayResponse('ACCESS_DENIED', requestId);
      authorizerContext = { ...(result.context ?? {}), principalId: result.principalId };
      usageIdentifierKey = typeof result.usageIdentifierKey === 'string' ? result.usageIdentifierKey : undefined;
    } else if (methodModel.authorizationType !== 'NONE') {
      return this.gatewayResponse('AUTHORIZER_CONFIGURATION_ERROR', requestId);
    }

    // API key: from the header or the authorizer, enabled, in a usage plan of this stage; its throttles and quota.
    let apiKey: { id: string; value: string } | undefined;
    if (methodModel.apiKeyRequired) {
      const value = this.keySource === 'AUTHORIZER' ? usageIdentifierKey : header('x-api-key');
      const key = value ? this.options.keys.keyByValue(value) : undefined;
      const plan = key?.enabled ? this.usagePlans.find((p) => p.coversStage && key.usagePlanIds.includes(p.id)) : undefined;
      if (!key || !plan) return this.gatewayResponse('INVALID_API_KEY', requestId);
      apiKey = { id: key.id, value: value! };
      const perMethod = plan.methodThrottles.get(`${node.path}/${method}`);
      const limit = perMethod ?? plan.throttle;
      if (limit && !this.take(`plan:${plan.id}:${key.id}:${perMethod ? `${node.path}/${method}` : '*'}`, limit)) return this.gatewayResponse('THROTTLED', requestId);
      if (plan.quota && !this.useQuota(`${plan.id}:${key.id}`, plan.quota)) return this.gatewayResponse('QUOTA_EXCEEDED', requestId);
    }
    // The stage's method throttles apply to every caller together.
    const stageLimit = this.stageThrottleFor(node.path, method);
    if (stageLimit && !this.take(`stage:${stageLimit.key}`, stageLimit.throttle)) return this.gatewayResponse('THROTTLED', requestId);

    const integration = methodModel.integration;
    if (integration.type === 'MOCK') return this.mock(integration);
    if (integration.type === 'UNSUPPORTED') {
      this.options.log(`[api] ${methodModel.logicalId}: ${integration.description} is not run locally`);
      return this.gatewayResponse('API_CONFIGURATION_ERROR', requestId);
    }

    const refused = this.permissions.refusal(integration.functionLogicalId, { principal: API_GATEWAY_PRINCIPAL, sourceArn: methodArn });
    if (refused) {
      this.options.log(`[api] Execution failed due to configuration error: Invalid permissions on Lambda function: ${refused}`);
      return this.gatewayResponse('API_CONFIGURATION_ERROR', requestId);
    }
    const binaryBody = this.isBinary(header('content-type'));
    const event = {
      resource: node.path,
      path: url.pathname,
      httpMethod: method,
      headers: Object.keys(headers).length ? headers : null,
      multiValueHeaders: Object.keys(multiValueHeaders).length ? multiValueHeaders : null,
      queryStringParameters: hasQuery ? query : null,
      multiValueQueryStringParameters: hasQuery ? multiQuery : null,
      pathParameters: Object.keys(params).length ? params : null,
      stageVariables: null,
      requestContext: this.requestContext(node, method, url, requestId, sourceIp, authorizerContext, apiKey),
      body: body.length ? (binaryBody ? body.toString('base64') : body.toString('utf8')) : null,
      isBase64Encoded: binaryBody && body.length > 0,
    };
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      this.options.functions.invoke(integration.functionLogicalId, event),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), integration.timeoutMs))),
    ]);
    clearTimeout(timer);
    if (outcome === 'timeout') return this.gatewayResponse('INTEGRATION_TIMEOUT', requestId);
    return this.proxyAnswer(outcome, requestId, header('accept'));
  }

  private requestContext(node: ResourceNode, method: string, url: URL, requestId: string, sourceIp: string, authorizer: Dict | null, apiKey?: { id: string; value: string }) {
    const now = new Date();
    return {
      accountId: this.options.model.account,
      apiId: this.restApiId,
      authorizer,
      domainName: `${this.restApiId}.execute-api.${this.options.model.region}.amazonaws.com`,
      domainPrefix: this.restApiId,
      extendedRequestId: requestId.slice(0, 16),
      httpMethod: method,
      identity: { sourceIp, userAgent: null, apiKey: apiKey?.value ?? null, apiKeyId: apiKey?.id ?? null, accessKey: null, accountId: null, caller: null, user: null, userArn: null, cognitoIdentityId: null, cognitoIdentityPoolId: null, cognitoAuthenticationType: null, cognitoAuthenticationProvider: null, principalOrgId: null, clientCert: null },
      path: `/${this.stageName}${url.pathname}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: node.path,
      resourcePath: node.path,
      stage: this.stageName,
    };
  }

  private stageThrottleFor(path: string, method: string): { key: string; throttle: Throttle } | undefined {
    // The most specific setting: this path and method, then this path, then /* with the method, then /*/*.
    const rank = (s: { resourcePath: string; method: string }) => (s.resourcePath === path ? 2 : 0) + (s.method === method ? 1 : 0);
    const applicable = this.stageThrottles.filter((s) => (s.resourcePath === path || s.resourcePath === '/*') && (s.method === method || s.method === '*'));
    const best = applicable.sort((a, b) => rank(b) - rank(a))[0];
    if (!best) return undefined;
    // A /*/* setting is each method's own limit, not one shared by all.
    return { key: `${path} ${method}`, throttle: best.throttle };
  }

  private take(key: string, limit: Throttle): boolean {
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new Bucket(limit)));
    return bucket.take();
  }

  private useQuota(key: string, quota: NonNullable<UsagePlanModel['quota']>): boolean {
    const now = new Date();
    const window =
      quota.period === 'DAY'
        ? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
        : quota.period === 'WEEK'
          ? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - ((now.getUTCDay() + 7 - quota.offset) % 7))
          : Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const state = this.quotas.get(key);
    if (!state || state.window !== window) {
      this.quotas.set(key, { window, used: 1 });
      return quota.limit >= 1;
    }
    if (state.used >= quota.limit) return false;
    state.used++;
    return true;
  }

  private mock(integration: { requestTemplates: Dict; responses: Dict[] }): Reply {
    let status = 200;
    try {
      const template = integration.requestTemplates['application/json'] ?? Object.values(integration.requestTemplates)[0];
      if (template) status = Number(JSON.parse(String(template)).statusCode ?? 200);
    } catch {
      // a template that is not plain JSON: status 200, as a mapping that sets none
    }
    const chosen =
      integration.responses.find((r) => r.SelectionPattern !== undefined && new RegExp(`^${r.SelectionPattern}$`).test(String(status))) ??
      integration.responses.find((r) => r.SelectionPattern === undefined || r.SelectionPattern === '');
    if (!chosen) return { status: 500, headers: { 'Content-Type': 'application/json' }, body: Buffer.from(JSON.stringify({ message: 'Internal server error' })) };
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((chosen.ResponseParameters ?? {}) as Record<string, string>)) {
      headers[name.replace(/^method\.response\.header\./, '')] = String(value).replace(/^'(.*)'$/s, '$1');
    }
    const templates = (chosen.ResponseTemplates ?? {}) as Dict;
    const body = String(templates['application/json'] ?? Object.values(templates)[0] ?? '');
    return { status: Number(chosen.StatusCode ?? status), headers: { 'Content-Type': 'application/json', ...headers }, body: Buffer.from(body) };
  }

  /** A function's answer as API Gateway's Lambda proxy integration hands it on. */
  private proxyAnswer(outcome: InvokeOutcome, requestId: string, accept: string | undefined): Reply {
    if (!outcome.ok) {
      if (outcome.throttled) return this.gatewayResponse('INTEGRATION_FAILURE', requestId, 500);
      // A failed invocation, or an answer over 6 MB: 502, "Internal server error" unless the template says otherwise.
      return this.gatewayResponse('DEFAULT_5XX', requestId, 502);
    }
    const result = outcome.payload as Dict | null;
    const statusCode = Number(result?.statusCode);
    const valid =
      result && typeof result === 'object' && Number.isInteger(statusCode) && statusCode >= 100 && statusCode <= 599 && (result.body === undefined || result.body === null || typeof result.body === 'string');
    if (!valid) {
      this.options.log(`[api] request ${requestId}: malformed Lambda proxy response`);
      return this.gatewayResponse('DEFAULT_5XX', requestId, 502);
    }
    const headers: Record<string, string> = {};
    for (const [name, values] of Object.entries((result.multiValueHeaders ?? {}) as Record<string, unknown[]>)) headers[name] = values.map(String).join(', ');
    for (const [name, value] of Object.entries((result.headers ?? {}) as Record<string, unknown>)) headers[name] = String(value);
    const contentType = Object.entries(headers).find(([h]) => h.toLowerCase() === 'content-type')?.[1];
    // A base64 body is decoded only when binary media types cover it (the Accept header's first type, or the
    // answer's Content-Type); otherwise the client gets the base64 text.
    const binary = result.isBase64Encoded === true && (this.isBinary(accept?.split(',')[0]) || this.isBinary(contentType));
    const body = Buffer.from(String(result.body ?? ''), binary ? 'base64' : 'utf8');
    return { status: statusCode, headers, body };
  }
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const errorTypeHeader = (type: string): string =>
  ({
    UNAUTHORIZED: 'UnauthorizedException',
    INVALID_API_KEY: 'ForbiddenException',
    ACCESS_DENIED: 'AccessDeniedException',
    MISSING_AUTHENTICATION_TOKEN: 'MissingAuthenticationTokenException',
    THROTTLED: 'TooManyRequestsException',
    QUOTA_EXCEEDED: 'LimitExceededException',
    REQUEST_TOO_LARGE: 'RequestTooLongException',
    INTEGRATION_TIMEOUT: 'InternalServerErrorException',
  })[type] ?? 'InternalServerErrorException';

const wildcard = (pattern: string): RegExp => new RegExp(`^${pattern.split('*').map((p) => p.split('?').map(escape).join('.')).join('.*')}$`);
const escape = (s: string) => s.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** An IAM-style policy (the authorizer's) allows execute-api:Invoke on the method ARN: an Allow matches, no Deny does. */
export function policyAllows(policy: Dict, methodArn: string): boolean {
  const statements = (Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement]) as Dict[];
  const matches = (s: Dict) => {
    const actions = ([] as string[]).concat(s.Action ?? []);
    const resources = ([] as string[]).concat(s.Resource ?? []);
    return actions.some((a) => wildcard(a.toLowerCase()).test('execute-api:invoke')) && resources.some((r) => wildcard(r).test(methodArn));
  };
  if (statements.some((s) => s.Effect === 'Deny' && matches(s))) return false;
  return statements.some((s) => s.Effect === 'Allow' && matches(s));
}
