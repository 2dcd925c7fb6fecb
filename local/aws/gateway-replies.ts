/**
 * What the template form's API Gateway answers (local/aws/api-gateway.ts) when it answers itself or hands on an
 * integration's answer: the gateway responses the template defines (else DEFAULT_4XX/5XX, else API Gateway's own
 * statuses, bodies and x-amzn-ErrorType), a MOCK integration's integration response, and a Lambda proxy answer as
 * API Gateway checks and decodes it.
 */
import type { Dict } from './cfn-json';
import type { InvokeOutcome } from './functions';
import { isBinaryType, type GatewayResponseModel } from './rest-api';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
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

export class GatewayReplies {
  constructor(
    private readonly responses: ReadonlyMap<string, GatewayResponseModel>,
    private readonly binaryMediaTypes: readonly string[],
    private readonly log: (line: string) => void,
  ) {}

  /** The gateway response of `type` as the template defines it (else DEFAULT_4XX/5XX, else API Gateway's own). */
  response(type: string, requestId: string, fallbackStatus?: number, extraHeaders: Record<string, string> = {}): Reply {
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

  /** A MOCK integration: the status its request template sets, and the integration response selected by it. */
  mock(integration: { requestTemplates: Dict; responses: Dict[] }): Reply {
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
  proxy(outcome: InvokeOutcome, requestId: string, accept: string | undefined): Reply {
    if (!outcome.ok) {
      if (outcome.throttled) return this.response('INTEGRATION_FAILURE', requestId, 500);
      // A failed invocation, or an answer over 6 MB: 502, "Internal server error" unless the template says otherwise.
      return this.response('DEFAULT_5XX', requestId, 502);
    }
    const result = outcome.payload as Dict | null;
    const statusCode = Number(result?.statusCode);
    const valid =
      result && typeof result === 'object' && Number.isInteger(statusCode) && statusCode >= 100 && statusCode <= 599 && (result.body === undefined || result.body === null || typeof result.body === 'string');
    if (!valid) {
      this.log(`[api] request ${requestId}: malformed Lambda proxy response`);
      return this.response('DEFAULT_5XX', requestId, 502);
    }
    const headers: Record<string, string> = {};
    for (const [name, values] of Object.entries((result.multiValueHeaders ?? {}) as Record<string, unknown[]>)) headers[name] = values.map(String).join(', ');
    for (const [name, value] of Object.entries((result.headers ?? {}) as Record<string, unknown>)) headers[name] = String(value);
    const contentType = Object.entries(headers).find(([h]) => h.toLowerCase() === 'content-type')?.[1];
    // A base64 body is decoded only when binary media types cover it (the Accept header's first type, or the
    // answer's Content-Type); otherwise the client gets the base64 text.
    const binary = result.isBase64Encoded === true && (isBinaryType(this.binaryMediaTypes, accept?.split(',')[0]) || isBinaryType(this.binaryMediaTypes, contentType));
    const body = Buffer.from(String(result.body ?? ''), binary ? 'base64' : 'utf8');
    return { status: statusCode, headers, body };
  }
}
