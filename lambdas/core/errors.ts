/** The API's one error shape, `{"error": {"code", "message"}}`, and the errors that carry it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Fields the error object carries beside code and message (a wait's `near_misses`, the message a 409 names). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ErrorBody {
  error: { code: number; message: string } & Record<string, unknown>;
}

export const errorBody = (status: number, message: string, details: Record<string, unknown> = {}): ErrorBody => ({ error: { code: status, message, ...details } });

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message: string) => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
export const methodNotAllowed = (message: string) => new ApiError(405, message);
export const conflict = (message: string) => new ApiError(409, message);
export const payloadTooLarge = (message: string) => new ApiError(413, message);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(429, `rate limit exceeded: retry after ${retryAfterSeconds} s`, {
    'Retry-After': String(retryAfterSeconds),
  });
export const serviceUnavailable = (message: string) => new ApiError(503, message, { 'Retry-After': '1' });

/** Thrown by stores when a dependency (DynamoDB, S3) cannot be reached; rendered as 503, never 500. */
export class DependencyUnavailable extends Error {
  constructor(readonly dependency: string, cause?: unknown) {
    super(`${dependency} is unavailable`, { cause });
    this.name = 'DependencyUnavailable';
  }
}

const TRANSIENT_NAMES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionConflictException',
  'InternalServerError',
  'InternalError',
  'ServiceUnavailable',
  'SlowDown',
  'TimeoutError',
  'RequestTimeout',
]);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a failure may go away by itself (a dependency down, throttled, a network fault, a transaction that
 * conflicted): worth retrying. Anything else — a mail that cannot be parsed, an item that will never fit — fails the
 * same way every time, so ingest stores a degraded message instead of retrying it into the dead-letter queue.
 */
export function isTransient(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number }; CancellationReasons?: { Code?: string }[]; cause?: unknown };
  if (!e || typeof e !== 'object') return false;
  if (error instanceof DependencyUnavailable) return true;
  if ((e.name && TRANSIENT_NAMES.has(e.name)) || (e.code && NETWORK_CODES.has(e.code)) || e.$retryable) return true;
  if (e.name === 'TransactionCanceledException') return (e.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError');
  if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  return e.cause !== undefined && e.cause !== error ? isTransient(e.cause) : false;
}
