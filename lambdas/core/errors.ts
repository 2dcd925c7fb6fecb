/** The API's one error shape, `{"error": {"code", "message"}}`, and the errors that carry it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ErrorBody {
  error: { code: number; message: string };
}

export const errorBody = (status: number, message: string): ErrorBody => ({ error: { code: status, message } });

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
