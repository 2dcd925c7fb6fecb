/**
 * The errors the gateway itself produces, before any handler runs. The CDK stack turns them into API Gateway
 * gateway responses and the local gateway renders the same bodies, so a client sees one format everywhere.
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'INVALID_API_KEY'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_REQUEST_BODY'
  | 'REQUEST_TOO_LARGE'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export const GATEWAY_RESPONSES: Record<GatewayResponseType, { status: number; message: string }> = {
  UNAUTHORIZED: { status: 401, message: 'missing or invalid API key: send a valid key in the X-API-Key header' },
  INVALID_API_KEY: { status: 401, message: 'missing or invalid API key: send a valid key in the X-API-Key header' },
  ACCESS_DENIED: { status: 403, message: "this key's plan has no API access; subscribe to a paid plan" },
  MISSING_AUTHENTICATION_TOKEN: { status: 404, message: 'no such route' },
  THROTTLED: { status: 429, message: 'rate limit exceeded: retry after the number of seconds in Retry-After' },
  QUOTA_EXCEEDED: { status: 429, message: 'quota exceeded: retry after the number of seconds in Retry-After' },
  BAD_REQUEST_BODY: { status: 400, message: 'invalid request body' },
  REQUEST_TOO_LARGE: { status: 413, message: 'request body too large' },
  DEFAULT_4XX: { status: 400, message: 'bad request' },
  DEFAULT_5XX: { status: 500, message: 'internal error; retry later' },
};

/** Seconds a client should wait after a 429 the gateway produced (API Gateway itself sends no Retry-After). */
export const THROTTLE_RETRY_AFTER_SECONDS = 1;
/** How long API Gateway caches an authorizer's answer for one key. */
export const AUTHORIZER_CACHE_SECONDS = 60;

/**
 * Responses at least this large are gzip-compressed for clients that accept it: API Gateway's
 * minimumCompressionSize on AWS (lib/viewer.ts sets it), the local gateway alike. Mostly for the viewer's files.
 */
export const COMPRESSION_MIN_BYTES = 1024;
