/**
 * The API's one error renderer: any failure as a status, headers and a body in the API's error format
 * (`{"error": {"code", "message"}}`, core/errors.ts). The API handlers' adapter (http/api-handler.ts), the viewer's
 * handler and the local gateway's own answers (local/gateway.ts) all call it, so an error reads the same whoever
 * answers. What is not an ApiError is a 503 when a dependency is down (retry shortly) and a 500 otherwise, each naming
 * the request id so that a report can be matched to the log; neither says more about its cause. The authorizer does
 * not answer itself (API Gateway renders its refusals, contract/gateway-responses.ts), and the SMTP port answers in
 * SMTP's reply codes.
 */
import { ApiError, errorBody } from '../core/errors';

/** Headers of every error answer, besides CORS (the adapter that answers adds its own). */
export const ERROR_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** What the answerer should log: nothing for an error the caller made, a warning for a dependency, an error otherwise. */
  log: 'none' | 'warn' | 'error';
  /** The dependency that was unavailable (a 503's cause, for the log). */
  dependency?: string;
}

/**
 * A dependency that cannot be reached (core/errors.ts's DependencyUnavailable). Matched by name: a handler bundle
 * carries its own copy of the class, so `instanceof` fails across bundles (the local gateway runs the authorizer's).
 */
const unavailableDependency = (error: unknown): string | undefined =>
  (error as Error | undefined)?.name === 'DependencyUnavailable' ? String((error as { dependency?: unknown }).dependency ?? 'a dependency') : undefined;

export function errorReply(error: unknown, requestId: string): ErrorReply {
  const reply = (status: number, message: string, extra: Record<string, string>, log: ErrorReply['log'], details?: Record<string, unknown>) => ({
    status,
    headers: { ...ERROR_HEADERS, 'X-Request-Id': requestId, ...extra },
    body: JSON.stringify(errorBody(status, message, details)),
    log,
  });
  if (error instanceof ApiError) return reply(error.status, error.message, error.headers, 'none', error.details);
  const dependency = unavailableDependency(error);
  if (dependency !== undefined) {
    return { ...reply(503, `service temporarily unavailable (${dependency}); retry shortly. request id ${requestId}`, { 'Retry-After': '1' }, 'warn'), dependency };
  }
  return reply(500, `internal error; request id ${requestId}`, {}, 'error');
}
