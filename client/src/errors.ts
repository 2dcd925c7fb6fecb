/** The client's errors: what the API answered (TempMailApiError) and what kept the request from reaching it. */

/** An answer in the API's error format: `status` is the HTTP status, `message` the API's own words. */
export class TempMailApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId?: string,
    /** Seconds, from the answer's Retry-After (429 and 503). */
    readonly retryAfter?: number,
    /** The error object's other fields: a wait's `near_misses` (408), the `message_id` or `message_ids` a 409 names. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'TempMailApiError';
  }

  /** Equal to the HTTP status, as in the error body. */
  get code(): number {
    return this.status;
  }
}

/** The API could not be reached at all (connection refused, timeout). */
export class TempMailNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TempMailNetworkError';
  }
}
