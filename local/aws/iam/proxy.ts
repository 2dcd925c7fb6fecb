/**
 * The IAM gate on the data plane: a loopback HTTP proxy in front of DynamoDB Local and the S3 server, which the
 * function processes reach through AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_S3 (and which presigned URLs
 * point at). Each request is attributed to a function by its SigV4 access key id (access-keys.ts), mapped to the
 * IAM checks AWS makes for it (requests.ts) and evaluated against the template's policies (gate.ts). A denied call
 * gets the service's own AccessDenied answer and a log line naming function, action and resource; an allowed one is
 * forwarded unchanged and streamed both ways, so a 40 MB object never sits whole in this process.
 *
 * Neither stand-in verifies signatures, so nothing is re-signed: DynamoDB Local ignores them (and, run with
 * -sharedDb as here, the access key does not pick a database); the S3 server, run with allowMismatchedSignatures,
 * still looks the access key id up in its one account, so the S3 credential's key id is rewritten to the server's
 * (`upstreamS3AccessKeyId`, S3RVER) — the signature then mismatches, which that server accepts by design.
 *
 * DynamoDB Streams are not proxied: on AWS the Lambda service reads the stream for an event-source mapping (with the
 * function's role), not the function's code; the runner's poller calls `gate.evaluate` for those reads itself.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IamGate } from './gate';
import { functionForAccessKeyId } from './access-keys';
import {
  accessKeyIdOf,
  deleteKeys,
  dynamodbChecks,
  dynamodbOperation,
  escapeXml,
  isMultiDelete,
  objectArn,
  s3Checks,
  s3Target,
  type IamCheck,
} from './requests';

export interface IamProxyOptions {
  /** DynamoDB Local's endpoint (http://127.0.0.1:port); no DynamoDB proxy without it. */
  dynamodbEndpoint?: string;
  /** The S3 server's endpoint; no S3 proxy without it. */
  s3Endpoint?: string;
  gate: IamGate;
  /** Access key id → function logical id; by default the reverse of accessKeyIdFor, for the gate's functions. */
  identify?: (accessKeyId: string) => string | undefined;
  /** The address to listen on: loopback. */
  host?: string;
  /**
   * The S3 server's own access key id, put in forwarded credentials (see above); S3RVER by default. null forwards
   * the credential unchanged, for a server that knows each function's key itself.
   */
  upstreamS3AccessKeyId?: string | null;
  log?: (line: string) => void;
}

export interface DeniedCall {
  functionLogicalId: string | undefined;
  action: string;
  resource: string;
  reason: string;
}

export interface IamProxy {
  /** For AWS_ENDPOINT_URL_DYNAMODB (undefined without a dynamodbEndpoint). */
  dynamodbEndpoint?: string;
  /** For AWS_ENDPOINT_URL_S3. */
  s3Endpoint?: string;
  /** Every call denied so far, in order. */
  readonly denied: DeniedCall[];
  close(): Promise<void>;
}

/** DynamoDB bodies are bounded by the service (16 MB for a batch); anything bigger is not a DynamoDB request. */
const MAX_DYNAMODB_BODY = 17 * 1024 * 1024;
/** A DeleteObjects body lists at most 1,000 keys of at most 1 KB each. */
const MAX_DELETE_BODY = 2 * 1024 * 1024;

const requestId = () => randomBytes(8).toString('hex').toUpperCase();

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error(`request body over ${limit} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Forwards a request to `upstream` and pipes its answer back; `body` when already read, else the request streams. */
function forward(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  upstream: URL,
  path: string,
  headers: http.OutgoingHttpHeaders,
  body: Buffer | undefined,
  log: (line: string) => void,
): http.ClientRequest {
  const out = http.request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path, headers: { ...headers, host: upstream.host } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders as unknown as http.OutgoingHttpHeaders);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    },
  );
  out.on('error', (error) => {
    log(`[iam] upstream ${upstream.host}: ${error.message}`);
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  res.on('close', () => {
    if (!res.writableFinished) out.destroy();
  });
  if (body) out.end(body);
  else req.pipe(out);
  return out;
}

/** The request's headers for forwarding, less hop-by-hop ones. `expect` is answered here (Node sends 100 itself). */
function forwardHeaders(req: http.IncomingMessage): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = { ...req.headers };
  for (const h of ['connection', 'keep-alive', 'expect', 'proxy-connection', 'transfer-encoding', 'upgrade']) delete headers[h];
  if (req.headers['transfer-encoding'] && headers['content-length'] === undefined) headers['transfer-encoding'] = 'chunked';
  return headers;
}

export async function startIamProxy(options: IamProxyOptions): Promise<IamProxy> {
  const { gate } = options;
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((line: string) => console.error(line));
  const upstreamKey = options.upstreamS3AccessKeyId === undefined ? 'S3RVER' : options.upstreamS3AccessKeyId;
  const identify = options.identify ?? ((key: string) => {
    const fn = functionForAccessKeyId(key);
    return fn && gate.functions.includes(fn) ? fn : undefined;
  });
  const denied: DeniedCall[] = [];
  const place = { region: gate.region, accountId: gate.accountId };

  /** Evaluates every check; the first denial (in order) decides. */
  const authorize = async (fn: string, checks: IamCheck[]): Promise<{ check: IamCheck; reason: string } | undefined> => {
    const decisions = await Promise.all(checks.map((c) => gate.evaluate({ functionLogicalId: fn, ...c })));
    const i = decisions.findIndex((d) => !d.allowed);
    return i < 0 ? undefined : { check: checks[i], reason: decisions[i].reason };
  };
  const refuse = (fn: string | undefined, check: IamCheck, reason: string) => {
    denied.push({ functionLogicalId: fn, action: check.action, resource: check.resource, reason });
    log(`[iam] denied ${fn ?? '(unknown caller)'} ${check.action} on ${check.resource}: ${reason}`);
  };

  const servers: http.Server[] = [];
  const listen = async (handler: http.RequestListener): Promise<string> => {
    const server = http.createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port: 0 }, () => resolve());
    });
    return `http://${host}:${(server.address() as AddressInfo).port}`;
  };

  // --- DynamoDB ---------------------------------------------------------------------------------------------------
  const dynamoError = (res: http.ServerResponse, status: number, type: string, message: string) => {
    const body = JSON.stringify({ __type: type, message });
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': requestId(), 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const dynamodb = async (req: http.IncomingMessage, res: http.ServerResponse, upstream: URL) => {
    let body: Buffer;
    try {
      body = await readBody(req, MAX_DYNAMODB_BODY);
    } catch (error) {
      return dynamoError(res, 413, 'com.amazon.coral.service#RequestEntityTooLarge', (error as Error).message);
    }
    const key = accessKeyIdOf(req.headers.authorization, new URLSearchParams());
    const fn = key ? identify(key) : undefined;
    if (!fn) {
      refuse(undefined, { action: 'dynamodb:*', resource: '*' }, `unknown access key id ${key ?? '(unsigned)'}`);
      return dynamoError(res, 400, 'com.amazon.coral.service#UnrecognizedClientException', 'The security token included in the request is invalid.');
    }
    const operation = dynamodbOperation(req.headers['x-amz-target'] as string | undefined);
    let checks: IamCheck[];
    try {
      if (!operation) throw new Error(`no operation in X-Amz-Target ${req.headers['x-amz-target']}`);
      checks = dynamodbChecks(operation, JSON.parse(body.toString('utf8')), place);
    } catch (error) {
      return dynamoError(res, 400, 'com.amazon.coral.service#SerializationException', (error as Error).message);
    }
    const denial = await authorize(fn, checks);
    if (denial) {
      refuse(fn, denial.check, denial.reason);
      return dynamoError(res, 400, 'com.amazonaws.dynamodb.v20120810#AccessDeniedException', denial.reason);
    }
    forward(req, res, upstream, req.url ?? '/', forwardHeaders(req), body, log);
  };

  // --- S3 ---------------------------------------------------------------------------------------------------------
  const s3Error = (req: http.IncomingMessage, res: http.ServerResponse, status: number, code: string, message: string, resource?: string) => {
    const id = requestId();
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${resource ? `<Resource>${escapeXml(resource)}</Resource>` : ''}<RequestId>${id}</RequestId><HostId>${id}</HostId></Error>`;
    // An unread request body (a refused PUT) is drained, not left to stall the connection.
    req.resume();
    res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': id, ...(req.method === 'HEAD' ? {} : { 'content-length': Buffer.byteLength(body) }) });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const s3 = async (req: http.IncomingMessage, res: http.ServerResponse, upstream: URL) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const rawPath = (req.url ?? '/').split('?')[0];
    const rawQuery = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?') + 1) : '';
    const method = req.method ?? 'GET';
    const target = s3Target(rawPath, req.headers.host);
    // A browser's CORS preflight carries no credentials: S3 answers it from the bucket's CORS rules, no IAM involved
    // (a page reading a pre-signed download from another origin sends one first).
    if (method === 'OPTIONS' && req.headers.origin && req.headers['access-control-request-method']) {
      return forward(req, res, upstream, target.pathStyle + (rawQuery ? `?${rawQuery}` : ''), forwardHeaders(req), undefined, log);
    }
    const key = accessKeyIdOf(req.headers.authorization, url.searchParams);
    const fn = key ? identify(key) : undefined;
    if (!fn) {
      const reason = key ? `unknown access key id ${key}` : 'an unsigned request';
      refuse(undefined, { action: 's3:*', resource: target.bucket ? objectArn(target.bucket, target.key ?? '') : '*' }, reason);
      return key
        ? s3Error(req, res, 403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.')
        : s3Error(req, res, 403, 'AccessDenied', 'Access Denied');
    }
    // Forwarded in path style, with the S3 server's own key id in the credential (see the header).
    const query =
      upstreamKey === null
        ? rawQuery
        : rawQuery.replace(/(^|&)(X-Amz-Credential=)([^&]*)/i, (_, sep: string, name: string, value: string) => {
            const parts = decodeURIComponent(value).split('/');
            parts[0] = upstreamKey;
            return `${sep}${name}${encodeURIComponent(parts.join('/'))}`;
          });
    const path = target.pathStyle + (query ? `?${query}` : '');
    const headers = forwardHeaders(req);
    if (upstreamKey !== null && typeof headers.authorization === 'string') {
      headers.authorization = headers.authorization.replace(/Credential=[^/,\s]+\//, `Credential=${upstreamKey}/`);
    }

    if (isMultiDelete(method, target, url.searchParams)) return multiDelete(req, res, upstream, fn, target.bucket!, path, headers);

    const checks = s3Checks(method, target, url.searchParams, req.headers);
    if (!checks) {
      refuse(fn, { action: `s3:${method}`, resource: rawPath }, 'a request the IAM gate does not map');
      return s3Error(req, res, 501, 'NotImplemented', `The IAM gate does not map ${method} ${rawPath}?${rawQuery} to IAM actions.`);
    }
    const denial = await authorize(fn, checks);
    if (denial) {
      refuse(fn, denial.check, denial.reason);
      return s3Error(req, res, 403, 'AccessDenied', denial.reason);
    }
    forward(req, res, upstream, path, headers, undefined, log);
  };

  /**
   * DeleteObjects as S3 answers it: each key needs s3:DeleteObject; the keys denied are reported in the result as
   * AccessDenied errors and the others deleted. The body, rewritten without the denied keys, gets a new Content-MD5
   * and loses the SDK's other checksums (the S3 server verifies only Content-MD5).
   */
  const multiDelete = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    upstream: URL,
    fn: string,
    bucket: string,
    path: string,
    headers: http.OutgoingHttpHeaders,
  ) => {
    const body = (await readBody(req, MAX_DELETE_BODY)).toString('utf8');
    const objects = deleteKeys(body);
    const decisions = await Promise.all(objects.map((o) => gate.evaluate({ functionLogicalId: fn, action: 's3:DeleteObject', resource: objectArn(bucket, o.key) })));
    const refused = objects.filter((o, i) => {
      if (decisions[i].allowed) return false;
      refuse(fn, { action: 's3:DeleteObject', resource: objectArn(bucket, o.key) }, decisions[i].reason);
      return true;
    });
    const errors = refused.map((o) => `<Error><Key>${escapeXml(o.key)}</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`).join('');
    if (refused.length === 0) return forward(req, res, upstream, path, headers, Buffer.from(body), log);
    if (refused.length === objects.length) {
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${errors}</DeleteResult>`;
      res.writeHead(200, { 'content-type': 'application/xml', 'x-amz-request-id': requestId(), 'content-length': Buffer.byteLength(xml) });
      return res.end(xml);
    }
    let rewritten = body;
    for (const o of refused) rewritten = rewritten.replace(o.xml, '');
    const bytes = Buffer.from(rewritten);
    const sent: http.OutgoingHttpHeaders = { ...headers, 'content-length': bytes.length, 'content-md5': createHash('md5').update(bytes).digest('base64') };
    for (const h of Object.keys(sent)) if (h.startsWith('x-amz-checksum-') || h === 'x-amz-sdk-checksum-algorithm') delete sent[h];
    delete sent['transfer-encoding'];
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: 'POST', path, headers: { ...sent, host: upstream.host } }, async (answer) => {
      const chunks: Buffer[] = [];
      for await (const chunk of answer) chunks.push(chunk as Buffer);
      const xml = Buffer.concat(chunks).toString('utf8');
      const merged = (answer.statusCode ?? 500) === 200 ? xml.replace('</DeleteResult>', `${errors}</DeleteResult>`) : xml;
      const h = { ...answer.headers, 'content-length': Buffer.byteLength(merged) };
      delete h['transfer-encoding'];
      res.writeHead(answer.statusCode ?? 502, h).end(merged);
    });
    out.on('error', (error) => {
      log(`[iam] upstream ${upstream.host}: ${error.message}`);
      if (!res.headersSent) res.writeHead(502).end();
    });
    out.end(bytes);
  };

  const handle = (fn: (req: http.IncomingMessage, res: http.ServerResponse, upstream: URL) => Promise<unknown>, upstream: URL): http.RequestListener => (req, res) => {
    fn(req, res, upstream).catch((error: Error) => {
      log(`[iam] ${req.method} ${req.url}: ${error.stack ?? error.message}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  };
  const proxy: IamProxy = {
    denied,
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
  try {
    if (options.dynamodbEndpoint) proxy.dynamodbEndpoint = await listen(handle(dynamodb, new URL(options.dynamodbEndpoint)));
    if (options.s3Endpoint) proxy.s3Endpoint = await listen(handle(s3, new URL(options.s3Endpoint)));
  } catch (error) {
    await proxy.close();
    throw error;
  }
  return proxy;
}
