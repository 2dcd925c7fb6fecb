/**
 * The local stand-in for API Gateway: turns an HTTP request into a REST proxy event, runs the same authorizer
 * handler, applies the plan's token bucket and renders the gateway's own errors in the API's error format. It hands
 * a function's answer on as the deployed REST API does (proxyReply), so that what breaks there breaks here. In the
 * embedded form it also serves the download links the store signs (S3's pre-signed URLs on AWS).
 *
 * Its memory is bounded whatever clients send: each client address holds a bounded number of connections, a body is
 * read only once the route and the key are known good, bodies in flight share one budget, and a body that does not
 * arrive in time is given up (600 stalled uploads of 1 MB once held 680 MB until the 60 s request timeout).
 */
import http from 'node:http';
import { pipeline, type Duplex } from 'node:stream';
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { corsHeaders, preflightHeaders } from '../lambdas/contract/cors';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '../lambdas/contract/gateway-responses';
import { LAMBDA_RESPONSE_LIMIT_BYTES, MAX_BODY_BYTES } from '../lambdas/core/limits';
import { matchRoute, type Route } from '../lambdas/contract/routes';
import { ROUTE_FUNCTIONS } from '../lambdas/layout/functions';
import { isPlanName } from '../lambdas/core/plans';
import { ApiError } from '../lambdas/core/errors';
import { errorReply } from '../lambdas/contract/error-reply';
import { logger } from '../lambdas/app/logger';
import { DOWNLOAD_PATH } from '../lambdas/core/downloads';
import type { StoredStream } from '../lambdas/core/ports';
import type { AppContext } from '../lambdas/usecases/context';
import { DownloadLimits, serveDownload } from './gateway-downloads';
import { lambdaContext, loadHandler } from './handlers';
import { TokenBuckets } from './rate-limiter';
import { compressed } from './gateway-compression';
import { reachableHost } from './config';
import { askForBodies, headersOf, queryOf } from './gateway-request';
import type { FreeSpace } from './free-space';

export interface GatewayOptions {
  host: string;
  port: number;
  /** The context the handlers run on (its plans feed the token buckets; its store signs download links). */
  ctx: AppContext;
  bundleDir?: string;
  /** How long an authorizer answer is reused for the same key, as API Gateway's authorizer cache does. */
  authorizerCacheSeconds: number;
  /** False: the plans' token buckets are not applied (TEMPMAIL_RATE_LIMITS=off). */
  rateLimits: boolean;
  /** SHA-256 of keys the token buckets never throttle (the stack's dev key, unless TEMPMAIL_RATE_LIMITS=on). */
  unthrottledKeyHashes?: ReadonlySet<string>;
  /** Logs one line per request when set (never headers: they carry the key). */
  log?: (line: string) => void;
  /** The data folder's free-space headroom: below it writes other than deletes are 507 (local/free-space.ts). */
  space?: FreeSpace;
  /** Called as each request has arrived whole, before its function runs (Stores.askOncePerInput). */
  inputArrived?: () => void;
}

/**
 * `own`: made by the gateway itself (its errors, preflights), which adds the CORS headers, as API Gateway's do.
 * `stream`: a download, sent as it is read (its `done` runs once the response has ended, however it ends).
 */
export type Reply = { status: number; headers: Record<string, string>; body: Buffer; own?: boolean; stream?: { from: StoredStream; done: () => void } };

function gatewayError(type: GatewayResponseType, requestId: string, extra: Record<string, string> = {}, message?: string, sentStatus?: number): Reply {
  const { status, message: fixed, keepStatus } = GATEWAY_RESPONSES[type];
  // The catch-alls keep the status API Gateway chose; their body is the fixed template.
  return { ...ownError(new ApiError(status, message ?? fixed, extra), requestId), ...(keepStatus && sentStatus ? { status: sentStatus } : {}) };
}

/**
 * A Lambda proxy result as the deployed REST API sends it. It declares no binary media types, so a base64 body with
 * isBase64Encoded goes out as the base64 text; an answer over Lambda's 6 MB response limit fails the invocation,
 * which API Gateway answers with 502 (DEFAULT_5XX).
 */
export function proxyReply(result: APIGatewayProxyResult, requestId: string): Reply {
  if (Buffer.byteLength(JSON.stringify(result)) > LAMBDA_RESPONSE_LIMIT_BYTES) {
    logger.error(`gateway: the function's answer exceeds Lambda's ${LAMBDA_RESPONSE_LIMIT_BYTES}-byte response limit`, { requestId });
    return gatewayError('DEFAULT_5XX', requestId, {}, undefined, 502);
  }
  const headers: Record<string, string> = { 'X-Request-Id': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  return { status: result.statusCode, headers, body: Buffer.from(result.body ?? '', 'utf8') };
}

/** The gateway's own error answers, in the API's one error format (lambdas/contract/error-reply.ts); an unexpected failure is logged. */
function ownError(error: unknown, requestId: string): Reply {
  const { status, headers, body, log, dependency } = errorReply(error, requestId);
  if (log === 'warn') logger.warn('gateway: dependency unavailable', { requestId, dependency });
  if (log === 'error') logger.error('gateway: request failed', { requestId, error: error as Error });
  return { status, headers, body: Buffer.from(body), own: true };
}

/** Connections one client address may hold (beyond: 429 and closed), as the SMTP port caps them; room for a CI burst of a few hundred requests at once. */
export const MAX_HTTP_CONNECTIONS_PER_CLIENT = 512;
/** Request bodies all clients together may have in memory at once (beyond: 503, Retry-After). */
export const BODY_BUDGET_BYTES = 32 * 1024 * 1024;
/** A body must have arrived this long after its headers (beyond: 408 and closed). */
export const BODY_TIMEOUT_MS = 10_000;

/** The bytes of request bodies held in memory, against BODY_BUDGET_BYTES. */
class BodyBudget {
  private used = 0;
  take(bytes: number): boolean {
    if (this.used + bytes > BODY_BUDGET_BYTES) return false;
    this.used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.used -= bytes;
  }
}

type BodyRead = { body: Buffer; held: number } | 'too-large' | 'over-budget' | 'timeout';

/**
 * The request body, counted against the budget as it arrives (a declared length up front); `held` is what the
 * caller gives back once the request is answered. A declared length past the limit is refused unread.
 */
function readBody(req: http.IncomingMessage, budget: BodyBudget): Promise<BodyRead> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.resolve('too-large');
  if (!budget.take(declared)) return Promise.resolve('over-budget');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let held = declared;
    const finish = (outcome: BodyRead) => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      if (typeof outcome === 'string') {
        budget.give(held);
        chunks.length = 0;
      }
      resolve(outcome);
    };
    const timer = setTimeout(() => finish('timeout'), BODY_TIMEOUT_MS);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return finish('too-large');
      if (size > held) {
        if (!budget.take(size - held)) return finish('over-budget');
        held = size;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish({ body: Buffer.concat(chunks), held }));
    req.on('error', (error) => {
      clearTimeout(timer);
      budget.give(held);
      reject(error);
    });
  });
}

/** The rest of a body answered early, discarded; `wait`: the socket is ended once it is in (past 8 MB: destroyed), not
 * destroyed once the answer is out as Node does to `Connection: close` (destroySoon), which cut uploads (EPIPE). */
function drainThenClose(req: http.IncomingMessage, headers: Record<string, string>, wait: boolean): void {
  headers.Connection = 'close';
  req.resume();
  if (!wait) return;
  let drained = 0;
  req.socket.destroySoon = () => undefined;
  req.on('end', () => req.socket.end()).on('data', (chunk: Buffer) => (drained += chunk.length) > 8 * 1024 * 1024 && req.socket.destroy());
}

/** An error-format answer written straight to the socket (requests that never reach the request handler), then closed. */
function refuse(socket: Duplex, status: number, message: string): void {
  const { headers, body } = errorReply(new ApiError(status, message), randomUUID());
  const lines = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`);
}

export class LocalGateway {
  private readonly server: http.Server;
  private readonly buckets = new TokenBuckets();
  /** key hash → authorizer answer; only answers for real keys are kept, so its size is bounded by the key count. */
  private readonly authorizerCache = new Map<string, { result: APIGatewayAuthorizerResult; until: number }>();
  private readonly perClient = new Map<string, number>();
  private readonly bodies = new BodyBudget();
  private readonly downloads: DownloadLimits | undefined;

  constructor(private readonly options: GatewayOptions) {
    this.downloads = options.rateLimits ? new DownloadLimits() : undefined;
    this.server = http.createServer({ requestTimeout: 60_000, headersTimeout: 10_000 }, (req, res) => {
      this.handle(req)
        .catch((error) => ownError(error, randomUUID()))
        .then(async (reply) => {
          const headers = reply.own ? { ...corsHeaders(this.options.ctx.settings.corsOrigin), ...reply.headers } : reply.headers;
          if (reply.stream) return sendStream(req, res, reply.status, headers, reply.stream);
          const body = await compressed(req, reply.body, headers);
          // Answered before its body was read: the connection closes, at once if the client awaits a 100 Continue
          // or the body stalled (408); else once the rest is read and discarded (an uploader got EPIPE, not the 413).
          if (!req.complete) drainThenClose(req, headers, !req.headers.expect && reply.status !== 408);
          res.writeHead(reply.status, { ...headers, 'Content-Length': String(body.length) });
          res.end(body);
        })
        .catch(() => res.destroy()); // only the compression can fail here (memory): the client sees the connection end
    });
    this.server.on('connection', (socket) => {
      const client = socket.remoteAddress ?? '';
      const held = this.perClient.get(client) ?? 0;
      if (held >= MAX_HTTP_CONNECTIONS_PER_CLIENT) return refuse(socket, 429, `too many connections from ${client}; close some and retry`);
      this.perClient.set(client, held + 1);
      socket.once('close', () => {
        const left = (this.perClient.get(client) ?? 1) - 1;
        if (left > 0) this.perClient.set(client, left);
        else this.perClient.delete(client);
      });
    });
    // Requests Node's parser rejects (bad or oversized headers, a request not finished in time) still get the error
    // format, and so does CONNECT (Node hands it over as a tunnel; there is none here).
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
      if (!socket.writable) return socket.destroy();
      if (error.code === 'HPE_HEADER_OVERFLOW') return refuse(socket, 431, 'request headers too large');
      if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return refuse(socket, 408, 'the request was not received in time');
      refuse(socket, 400, 'malformed HTTP request');
    });
    this.server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => refuse(socket, 405, 'method CONNECT is not allowed'));
    askForBodies(this.server);
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => resolve());
    });
    const address = this.server.address() as { port: number };
    return `http://${reachableHost(this.options.host)}:${address.port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage): Promise<Reply> {
    const requestId = randomUUID();
    const started = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://local');
    } catch {
      // An absolute-form target URL parsing refuses (`GET http://[/v1/inboxes`): API Gateway answers 400 too.
      return ownError(new ApiError(400, 'malformed request target'), requestId);
    }
    const reply = await this.dispatch(req, url, method, requestId);
    this.options.log?.(`${method} ${url.pathname} ${reply.status} ${Date.now() - started}ms`);
    return reply;
  }

  /** The route and the key are checked before any body is read: a refused request costs no memory for its body. */
  private async dispatch(req: http.IncomingMessage, url: URL, method: string, requestId: string): Promise<Reply> {
    if (url.pathname.startsWith(DOWNLOAD_PATH) && (method === 'GET' || method === 'HEAD')) return this.download(req, url, requestId);
    const match = matchRoute(method, url.pathname);
    if (match.kind === 'not-found') return gatewayError('MISSING_AUTHENTICATION_TOKEN', requestId, {}, `no such route: ${url.pathname}`);
    // A CORS preflight: answered by the gateway for every resource, with no key (browsers send none), as the CDK
    // stack's OPTIONS mocks do.
    if (method === 'OPTIONS' && match.kind === 'method-not-allowed') {
      return { status: 204, headers: { 'X-Request-Id': requestId, ...preflightHeaders(this.options.ctx.settings.corsOrigin, match.allowed) }, body: Buffer.alloc(0), own: true };
    }
    if (match.kind === 'method-not-allowed') {
      const allowed = match.allowed.join(', ');
      return ownError(new ApiError(405, `method ${method} not allowed on ${url.pathname}; allowed: ${allowed}`, { Allow: allowed }), requestId);
    }
    const { route } = match;
    let authorizer: Record<string, unknown> | null = null;
    if (route.auth) {
      const outcome = await this.authorize(route, method, url.pathname, headersOf(req).headers, requestId);
      if ('reply' in outcome) return outcome.reply;
      authorizer = outcome.context;
    }
    const noSpace = this.options.space?.refusesWrite(method);
    if (noSpace) return ownError(new ApiError(507, noSpace), requestId);
    const read = await readBody(req, this.bodies);
    if (read === 'too-large') return gatewayError('REQUEST_TOO_LARGE', requestId, {}, `request body exceeds ${MAX_BODY_BYTES} bytes`);
    if (read === 'over-budget') return ownError(new ApiError(503, 'too many request bodies in flight; retry shortly', { 'Retry-After': '1' }), requestId);
    if (read === 'timeout') return ownError(new ApiError(408, `the request body was not received within ${BODY_TIMEOUT_MS / 1000} s`), requestId);
    this.options.inputArrived?.();
    try {
      return await this.invoke(req, url, method, requestId, match, authorizer, read.body);
    } finally {
      this.bodies.give(read.held);
    }
  }

  /** The function behind the route, with the event API Gateway would give it. */
  private async invoke(
    req: http.IncomingMessage,
    url: URL,
    method: string,
    requestId: string,
    { route, params }: { route: Route; params: Record<string, string> },
    authorizer: Record<string, unknown> | null,
    body: Buffer,
  ): Promise<Reply> {
    const { headers, multi } = headersOf(req);
    const query = queryOf(url);
    const event: APIGatewayProxyEvent = {
      resource: route.path,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders: multi,
      queryStringParameters: query.single,
      multiValueQueryStringParameters: query.multi,
      pathParameters: Object.keys(params).length ? params : null,
      stageVariables: null,
      body: body.length ? body.toString('utf8') : null,
      isBase64Encoded: false,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        authorizer,
        httpMethod: method,
        path: `/local${url.pathname}`,
        protocol: 'HTTP/1.1',
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: route.name,
        resourcePath: route.path,
        stage: 'local',
        identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' } as APIGatewayProxyEvent['requestContext']['identity'],
      },
    };
    const deployed = ROUTE_FUNCTIONS[route.name];
    const handler = loadHandler(deployed.handler, this.options.bundleDir);
    const result = (await handler(event, lambdaContext(route.name, requestId, (deployed.timeoutSeconds ?? 10) * 1000))) as APIGatewayProxyResult;
    return proxyReply(result, requestId);
  }

  private async authorize(
    route: Route,
    method: string,
    path: string,
    headers: Record<string, string>,
    requestId: string,
  ): Promise<{ reply: Reply } | { context: Record<string, unknown> }> {
    const key = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
    const keyHash = key ? createHash('sha256').update(key).digest('hex') : '';
    let result: APIGatewayAuthorizerResult;
    const cached = key ? this.authorizerCache.get(keyHash) : undefined;
    if (cached && cached.until > Date.now()) {
      result = cached.result;
    } else {
      try {
        result = (await loadHandler('api/authorizer', this.options.bundleDir)(
          {
            type: 'REQUEST',
            methodArn: `arn:aws:execute-api:local:000000000000:local/local/${method}${path}`,
            resource: route.path,
            path,
            httpMethod: method,
            headers,
            requestContext: { requestId },
          },
          lambdaContext('authorizer', requestId),
        )) as APIGatewayAuthorizerResult;
      } catch (error) {
        if ((error as Error).message === 'Unauthorized') return { reply: gatewayError('UNAUTHORIZED', requestId) };
        if ((error as Error).name === 'DependencyUnavailable') return { reply: ownError(error, requestId) };
        logger.error('gateway: the authorizer failed', { requestId, error: (error as Error)?.message });
        return { reply: gatewayError('AUTHORIZER_FAILURE', requestId) };
      }
      if (this.options.authorizerCacheSeconds > 0) {
        this.authorizerCache.set(keyHash, { result, until: Date.now() + this.options.authorizerCacheSeconds * 1000 });
      }
    }
    if (result.policyDocument.Statement.some((s) => s.Effect === 'Deny')) return { reply: gatewayError('ACCESS_DENIED', requestId) };
    const context: Record<string, unknown> = { ...(result.context ?? {}), principalId: result.principalId };
    const plan = context.plan;
    if (this.options.rateLimits && isPlanName(plan) && result.usageIdentifierKey && !this.options.unthrottledKeyHashes?.has(keyHash)) {
      const wait = this.buckets.take(keyHash, this.options.ctx.settings.plans[plan]);
      if (wait > 0) return { reply: gatewayError('THROTTLED', requestId, { 'Retry-After': String(wait) }) };
    }
    return { context };
  }

  /** A signed download link (local/gateway-downloads.ts): its errors are the gateway's own, in the error format. */
  private async download(req: http.IncomingMessage, url: URL, requestId: string): Promise<Reply> {
    try {
      const served = await serveDownload(this.options.ctx, url, req.socket.remoteAddress ?? '', this.downloads, req.headers.range);
      return { status: served.status, headers: { ...served.headers, 'X-Request-Id': requestId }, body: Buffer.alloc(0), stream: { from: served.stream, done: served.done } };
    } catch (error) {
      if (error instanceof ApiError) return ownError(error, requestId);
      throw error;
    }
  }
}

/** A download's bytes as the client takes them: a client that stops reading holds a file open, not its bytes in memory. */
function sendStream(req: http.IncomingMessage, res: http.ServerResponse, status: number, headers: Record<string, string>, { from, done }: { from: StoredStream; done: () => void }): void {
  res.once('close', done);
  res.writeHead(status, { ...headers, 'Content-Length': String(from.span ? from.span.end - from.span.start + 1 : from.size) });
  if (req.method === 'HEAD') {
    from.body.destroy();
    res.end();
    return;
  }
  // A read that fails midway cuts the connection: the client sees fewer bytes than Content-Length, never a short file as whole.
  pipeline(from.body, res, () => undefined);
}
