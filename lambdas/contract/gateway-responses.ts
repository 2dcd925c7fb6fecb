/**
 * The errors the gateway itself produces, before any handler runs. The CDK stack turns them into API Gateway
 * gateway responses and the local gateway renders the same bodies, so a client sees one format everywhere.
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'INVALID_API_KEY'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'INVALID_SIGNATURE'
  | 'EXPIRED_TOKEN'
  | 'WAF_FILTERED'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_REQUEST_BODY'
  | 'BAD_REQUEST_PARAMETERS'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'REQUEST_TOO_LARGE'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'API_CONFIGURATION_ERROR'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

/**
 * `status` is the code in the body and, unless `keepStatus`, the status the response is sent with. Every type API
 * Gateway documents is named with its own status, so the two catch-alls only see what no type names: they keep the
 * status API Gateway chose (a template cannot read it, so their body names the likeliest: a Lambda function that
 * failed or answered over 6 MB is 502).
 */
export const GATEWAY_RESPONSES: Record<GatewayResponseType, { status: number; message: string; keepStatus?: true }> = {
  UNAUTHORIZED: { status: 401, message: 'missing or invalid API key: send a valid key in the X-API-Key header' },
  INVALID_API_KEY: { status: 401, message: 'missing or invalid API key: send a valid key in the X-API-Key header' },
  ACCESS_DENIED: { status: 403, message: "this key's plan has no API access; subscribe to a paid plan" },
  MISSING_AUTHENTICATION_TOKEN: { status: 404, message: 'no such route' },
  RESOURCE_NOT_FOUND: { status: 404, message: 'no such route' },
  INVALID_SIGNATURE: { status: 403, message: 'invalid request signature' },
  EXPIRED_TOKEN: { status: 403, message: 'expired credentials' },
  WAF_FILTERED: { status: 403, message: 'request blocked by the firewall' },
  THROTTLED: { status: 429, message: 'rate limit exceeded: retry after the number of seconds in Retry-After' },
  QUOTA_EXCEEDED: { status: 429, message: 'quota exceeded: retry after the number of seconds in Retry-After' },
  BAD_REQUEST_BODY: { status: 400, message: 'invalid request body' },
  BAD_REQUEST_PARAMETERS: { status: 400, message: 'invalid request parameters' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'unsupported media type' },
  REQUEST_TOO_LARGE: { status: 413, message: 'request body too large' },
  AUTHORIZER_FAILURE: { status: 500, message: 'the key could not be checked; retry later' },
  AUTHORIZER_CONFIGURATION_ERROR: { status: 500, message: 'the key could not be checked; retry later' },
  API_CONFIGURATION_ERROR: { status: 500, message: 'internal error; retry later' },
  INTEGRATION_FAILURE: { status: 504, message: 'the function could not be run; retry later' },
  INTEGRATION_TIMEOUT: { status: 504, message: 'the request took too long; retry later' },
  DEFAULT_4XX: { status: 400, message: 'bad request', keepStatus: true },
  DEFAULT_5XX: { status: 502, message: 'the function failed or its answer was invalid (e.g. over 6 MB); retry later', keepStatus: true },
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
