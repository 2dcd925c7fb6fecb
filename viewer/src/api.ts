/**
 * The viewer's door to the API: the typed client (client/), on the page's own origin, with the key kept in
 * sessionStorage (typed once per tab, gone when the tab closes, never put in a URL). Requests can be cancelled, so
 * a long-poll left behind by navigation does not hold one of the browser's few connections to the origin.
 */
import { TempMailApiError, TempMailClient } from '../../client';

export { TempMailApiError };

const KEY_SLOT = 'tempmail.apiKey';

export const storedKey = (): string | null => sessionStorage.getItem(KEY_SLOT);
export const storeKey = (key: string): void => sessionStorage.setItem(KEY_SLOT, key);
export const forgetKey = (): void => sessionStorage.removeItem(KEY_SLOT);

/** Where the API is: the folder the page was served from (`/` locally, `/<stage>/` behind API Gateway). */
export const apiBase = (): string => new URL('.', location.href).href;

export function apiClient(key: string, signal?: AbortSignal): TempMailClient {
  return new TempMailClient({
    apiKey: key,
    baseUrl: apiBase(),
    // A wrapper, not `fetch` itself: the client calls it as a method, which a browser's fetch refuses.
    fetch: (input, init) => fetch(input, { ...init, signal: signal && init?.signal ? AbortSignal.any([init.signal, signal]) : (signal ?? init?.signal) }),
  });
}

/** The API's own words for an error (its message), or what went wrong on the way. */
export function describeError(error: unknown): string {
  if (error instanceof TempMailApiError) return `${error.message} (HTTP ${error.status})`;
  return (error as Error)?.message ?? String(error);
}

export const isUnauthorized = (error: unknown): boolean => error instanceof TempMailApiError && error.status === 401;
export const isAbort = (error: unknown): boolean => (error as Error)?.name === 'AbortError' || ((error as { cause?: Error })?.cause?.name === 'AbortError');
