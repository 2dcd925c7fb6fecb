/**
 * The HTTP adapter every API handler shares (middy): request id, body and query parsing with zod, the caller from
 * the authorizer's context, and one error renderer. A handler only names its schemas and calls its use case.
 */
import middy from '@middy/core';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
// zod/mini, as in schemas.ts: the full zod would triple the bundle.
import * as z from 'zod/mini';
type ZodType<T = unknown> = z.ZodMiniType<T>;
import { corsHeaders, DEFAULT_CORS_ORIGIN } from '../contract/cors';
import { ApiError, payloadTooLarge, badRequest, unauthorized } from '../core/errors';
import { ERROR_HEADERS, errorReply } from '../contract/error-reply';
import { MAX_BODY_BYTES } from '../core/limits';
import type { Caller } from '../core/model';
import { isPlanName } from '../core/plans';
import { currentContext } from '../app/current';
import type { AppContext } from '../usecases/context';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../app/logger';

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  caller: Caller;
  ctx: AppContext;
  requestId: string;
}

/**
 * JSON, or a redirect (to a pre-signed S3 URL). No raw bytes: the REST API declares no binary media types, so API
 * Gateway would pass a base64 body on as text, and Lambda's 6 MB response limit would cap it.
 */
export type HandlerResult<J = unknown> = { status: number; json: J; headers?: Record<string, string> } | { status: 301 | 302 | 303 | 307; redirect: string };

/** What a route's answers may hold: its response schema's input, or an other answer's (contract.ts). */
type JsonOf<S> = S extends z.ZodMiniType<unknown, infer I> ? I : never;
type OtherJson<O> = O extends Readonly<Record<number, { schema?: infer T }>> ? JsonOf<NonNullable<T>> : never;
/**
 * The JSON a handler may answer with, checked when compiling: the route's response schema, another answer's
 * (`otherResponses`), or null for a 204 (no content). A route without a response schema may answer anything.
 */
export type AnswerJson<R, O> = JsonOf<R> | OtherJson<O> | (R extends z.ZodMiniType ? never : unknown) | null;

interface Schemas<P, Q, B, R, O> {
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
  /** The route's answer (contract.ts): a handler's `json` must fit it, or one of `otherResponses`. */
  response?: R;
  otherResponses?: O;
  /** False for the few documents served without a key. */
  auth?: boolean;
}

/** The CORS headers of every answer, error or not; an answer about a broken config still gets the default. */
function cors(): Record<string, string> {
  try {
    return corsHeaders(currentContext().settings.corsOrigin);
  } catch {
    return corsHeaders(DEFAULT_CORS_ORIGIN);
  }
}

const jsonHeaders = (requestId: string, extra: Record<string, string> = {}) => ({
  ...ERROR_HEADERS,
  'X-Request-Id': requestId,
  ...cors(),
  ...extra,
});

/** Any failure in the API's error format (contract/error-reply.ts), logged unless the caller made it. */
export function errorResponse(error: unknown, requestId: string): APIGatewayProxyResult {
  const { status, headers, body, log, dependency } = errorReply(error, requestId);
  if (log === 'warn') logger.warn('dependency unavailable', { requestId, dependency });
  if (log === 'error') logger.error('unhandled error', { requestId, error: error as Error });
  return { statusCode: status, headers: { ...headers, ...cors() }, body };
}

/**
 * "field: what is wrong", for the first problem zod found. A path is written as the rules the use cases check write
 * theirs (`conditions[0].field`), and a number that is not one says so, not "received NaN".
 */
export function describeZodError(error: z.core.$ZodError, where: string): string {
  const issue = error.issues[0];
  if (issue.code === 'unrecognized_keys') return `unknown ${where} field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
  const path = issue.path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i ? '.' : ''}${String(part)}`)).join('');
  const what = issue.message === 'Invalid input: expected number, received NaN' ? 'expected a number' : issue.message;
  return what.startsWith(path) || !path ? what : `${path}: ${what}`;
}

function parse<T>(schema: ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(describeZodError(result.error, where));
  return result.data;
}

/**
 * The query as one value per name. API Gateway's queryStringParameters keeps the last of a repeated name, which would
 * make `?group=a&group=b` quietly mean b: a name given twice is a 400 instead, as a typo is.
 */
function singleQuery(event: APIGatewayProxyEvent): Record<string, string | undefined> {
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 1) throw badRequest(`query parameter ${name} is given ${values.length} times; give it once`);
  }
  return event.queryStringParameters ?? {};
}

function parseBody(event: APIGatewayProxyEvent): unknown {
  if (event.body === null || event.body === undefined || event.body === '') return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw payloadTooLarge(`request body exceeds ${MAX_BODY_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('request body must be a JSON object');
  return value;
}

function callerOf(event: APIGatewayProxyEvent): Caller {
  const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  const accountId = authorizer?.accountId;
  const plan = authorizer?.plan;
  // Defence in depth: the gateway's authorizer already refused such requests.
  if (typeof accountId !== 'string' || !isPlanName(plan)) throw unauthorized('missing or invalid API key');
  return { account_id: accountId, plan };
}

export function apiHandler<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>, R = unknown, O = never>(
  schemas: Schemas<P, Q, B, R, O>,
  run: (input: HandlerInput<P, Q, B>) => Promise<HandlerResult<AnswerJson<R, O>>>,
) {
  const base = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const requestId = event.requestContext?.requestId ?? randomUUID();
    try {
      const caller = schemas.auth === false ? { account_id: '', plan: 'free' as const } : callerOf(event);
      const params = parse(schemas.params, event.pathParameters ?? {}, 'path');
      const query = parse(schemas.query, singleQuery(event), 'query');
      const body = schemas.body ? parse(schemas.body, parseBody(event), 'body') : (undefined as B);
      const result = await run({ params, query, body, caller, ctx: currentContext(), requestId });
      if ('redirect' in result) {
        return { statusCode: result.status, headers: { Location: result.redirect, 'X-Request-Id': requestId, 'Cache-Control': 'no-store', ...cors() }, body: '' };
      }
      // 204: no content, as HTTP has it (a JSON body would break clients that trust the status).
      return { statusCode: result.status, headers: jsonHeaders(requestId, result.headers), body: result.status === 204 ? '' : JSON.stringify(result.json) };
    } catch (error) {
      return errorResponse(error, requestId);
    }
  };
  // Just before the function's time runs out, answer 503 in the error format rather than let it be cut off.
  return middy(base, {
    timeoutEarlyResponse: () => errorResponse(new ApiError(503, 'the request took too long; retry shortly', { 'Retry-After': '1' }), randomUUID()),
  }).use(injectLambdaContext(logger));
}
