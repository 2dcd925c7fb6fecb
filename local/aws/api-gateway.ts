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
 * Its parts: the REST API read from the template (local/aws/rest-api.ts), the authorizer (api-authorizer.ts), the
 * throttles and quotas (throttles.ts), the answers it gives itself or hands on (gateway-replies.ts); here, the
 * server and the order a request goes through them.
 *
 * What AWS answers that this one does not: resource policies, request validators, non-proxy AWS/HTTP integrations,
 * VTL mapping templates beyond static bodies, WAF, account-level throttles (10,000 requests/s).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { API_GATEWAY_PRINCIPAL, RequestAuthorizers } from './api-authorizer';
import type { Dict } from './cfn-json';
import type { FunctionRunner } from './functions';
import { GatewayReplies, type Reply } from './gateway-replies';
import { InvokePermissions } from './invoke-permissions';
import { isBinaryType, matchResource, readRestApi, REQUEST_LIMIT_BYTES, type RestApiModel, type ResourceNode } from './rest-api';
import type { LocalStackModel } from './template';
import { GatewayLimits } from './throttles';

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
  /** The REST API as the template defines it (local/aws/rest-api.ts). */
  private readonly api: RestApiModel;
  private readonly replies: GatewayReplies;
  private readonly authorizers: RequestAuthorizers;
  private readonly limits: GatewayLimits;
  /** The functions' resource policies: API Gateway may invoke only what an AWS::Lambda::Permission lets it. */
  private readonly permissions: InvokePermissions;
  private server?: http.Server;

  constructor(private readonly options: ApiGatewayOptions) {
    this.permissions = new InvokePermissions(options.model);
    this.api = readRestApi(options.model, options.authorizerCacheSeconds);
    ({ restApiLogicalId: this.restApiLogicalId, restApiId: this.restApiId, stageName: this.stageName } = this.api);
    this.replies = new GatewayReplies(this.api.responses, this.api.binaryMediaTypes, options.log);
    this.authorizers = new RequestAuthorizers(this.api.authorizers, options.functions, this.permissions, options.log);
    this.limits = new GatewayLimits(this.api.stageThrottles);
  }

  async listen(): Promise<string> {
    this.server = http.createServer({ requestTimeout: 60_000, headersTimeout: 10_000 }, (req, res) => {
      const requestId = randomUUID();
      this.handle(req, requestId)
        .catch((error) => {
          this.options.log(`[api] request ${requestId} failed in the gateway: ${(error as Error).stack ?? error}`);
          return this.replies.response('API_CONFIGURATION_ERROR', requestId);
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
    const { minimumCompressionSize } = this.api;
    if (minimumCompressionSize !== undefined && accepts && body.length >= minimumCompressionSize && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-encoding')) {
      body = gzipSync(body);
      headers['Content-Encoding'] = 'gzip';
    }
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-length' || name.toLowerCase() === 'transfer-encoding') delete headers[name];
    res.writeHead(reply.status, { ...headers, 'Content-Length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
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
      return this.replies.response('DEFAULT_4XX', requestId, 400);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size <= REQUEST_LIMIT_BYTES) chunks.push(chunk as Buffer);
    }
    if (size > REQUEST_LIMIT_BYTES) return this.replies.response('REQUEST_TOO_LARGE', requestId);
    const body = Buffer.concat(chunks);

    const matched = matchResource(this.api.root, url.pathname);
    const methodModel = matched && (matched.node.methods.get(method) ?? matched.node.methods.get('ANY'));
    if (!matched || !methodModel) return this.replies.response('MISSING_AUTHENTICATION_TOKEN', requestId);
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
      const authorization = await this.authorizers.authorize({
        authorizerId: methodModel.authorizerId,
        methodArn,
        apiArn: `arn:aws:execute-api:${this.options.model.region}:${this.options.model.account}:${this.restApiId}`,
        header,
        query,
        event: () => ({
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
        }),
      });
      if (!authorization.allowed) return this.replies.response(authorization.response, requestId);
      authorizerContext = authorization.context;
      usageIdentifierKey = authorization.usageIdentifierKey;
    } else if (methodModel.authorizationType !== 'NONE') {
      return this.replies.response('AUTHORIZER_CONFIGURATION_ERROR', requestId);
    }

    // API key: from the header or the authorizer, enabled, in a usage plan of this stage; its throttles and quota.
    let apiKey: { id: string; value: string } | undefined;
    if (methodModel.apiKeyRequired) {
      const value = this.api.keySource === 'AUTHORIZER' ? usageIdentifierKey : header('x-api-key');
      const key = value ? this.options.keys.keyByValue(value) : undefined;
      const plan = key?.enabled ? this.api.usagePlans.find((p) => p.coversStage && key.usagePlanIds.includes(p.id)) : undefined;
      if (!key || !plan) return this.replies.response('INVALID_API_KEY', requestId);
      apiKey = { id: key.id, value: value! };
      const perMethod = plan.methodThrottles.get(`${node.path}/${method}`);
      const limit = perMethod ?? plan.throttle;
      if (limit && !this.limits.take(`plan:${plan.id}:${key.id}:${perMethod ? `${node.path}/${method}` : '*'}`, limit)) return this.replies.response('THROTTLED', requestId);
      if (plan.quota && !this.limits.useQuota(`${plan.id}:${key.id}`, plan.quota)) return this.replies.response('QUOTA_EXCEEDED', requestId);
    }
    // The stage's method throttles apply to every caller together.
    const stageLimit = this.limits.stageThrottleFor(node.path, method);
    if (stageLimit && !this.limits.take(`stage:${stageLimit.key}`, stageLimit.throttle)) return this.replies.response('THROTTLED', requestId);

    const integration = methodModel.integration;
    if (integration.type === 'MOCK') return this.replies.mock(integration);
    if (integration.type === 'UNSUPPORTED') {
      this.options.log(`[api] ${methodModel.logicalId}: ${integration.description} is not run locally`);
      return this.replies.response('API_CONFIGURATION_ERROR', requestId);
    }

    const refused = this.permissions.refusal(integration.functionLogicalId, { principal: API_GATEWAY_PRINCIPAL, sourceArn: methodArn });
    if (refused) {
      this.options.log(`[api] Execution failed due to configuration error: Invalid permissions on Lambda function: ${refused}`);
      return this.replies.response('API_CONFIGURATION_ERROR', requestId);
    }
    const binaryBody = isBinaryType(this.api.binaryMediaTypes, header('content-type'));
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
    if (outcome === 'timeout') return this.replies.response('INTEGRATION_TIMEOUT', requestId);
    return this.replies.proxy(outcome, requestId, header('accept'));
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
}
