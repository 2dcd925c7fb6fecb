/**
 * Cross-origin access to the API, stated once for the handlers, the local gateway and the CDK stack (gateway
 * responses and preflight mocks): browser tools (the viewer on another origin, Swagger UI) may call it. Keys travel
 * in the X-API-Key header, never in cookies, so allowing any origin (`*`, the default) lends a page nothing it
 * does not already hold; a deployment may name one origin instead (TEMPMAIL_CORS_ORIGIN / `tempmail:corsOrigin`).
 */
export const DEFAULT_CORS_ORIGIN = '*';
export const CORS_ALLOW_HEADERS = ['X-API-Key', 'Content-Type'] as const;
/** Headers a browser script may read: the request id to report, and how long to back off. */
export const CORS_EXPOSE_HEADERS = ['X-Request-Id', 'Retry-After'] as const;
/** How long a browser may reuse a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/** `*` or one origin (scheme://host[:port], no path); null otherwise. */
export function parseCorsOrigin(value: string | undefined): string | null {
  if (value === undefined || value === '') return DEFAULT_CORS_ORIGIN;
  if (value === '*') return value;
  return /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i.test(value) || /^https?:\/\/\[[0-9a-f:]+\](:\d{1,5})?$/i.test(value) ? value : null;
}

/** On every response of an API route, success or error. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS.join(', '),
    ...(origin === '*' ? {} : { Vary: 'Origin' }),
  };
}

/** The answer to a preflight (OPTIONS) on a resource whose routes allow `methods`. */
export function preflightHeaders(origin: string, methods: readonly string[]): Record<string, string> {
  return {
    ...corsHeaders(origin),
    'Access-Control-Allow-Methods': [...new Set([...methods, 'OPTIONS'])].join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  };
}
