/**
 * The viewer's door to the API: the typed client (client/), on the page's own origin, with the key kept in
 * sessionStorage (typed once per tab, gone when the tab closes, never put in a URL), and in localStorage too when
 * its user asks the browser to remember it (so that a deep link opened in a new tab opens without asking; signing
 * out forgets it there as well). Requests can be cancelled, so
 * a long-poll left behind by navigation does not hold one of the browser's few connections to the origin.
 */
import { TempMailApiError, TempMailClient } from '../../client';

export { TempMailApiError };

const KEY_SLOT = 'tempmail.apiKey';

/** This tab's key, else the one this browser was asked to remember (taken into the tab). */
export function storedKey(): string | null {
  const key = sessionStorage.getItem(KEY_SLOT) ?? localStorage.getItem(KEY_SLOT);
  if (key) sessionStorage.setItem(KEY_SLOT, key);
  return key;
}
/** Keeps the key for this tab; `remember`: for every tab of this browser too, until sign-out (else forgotten there). */
export function storeKey(key: string, remember = false): void {
  sessionStorage.setItem(KEY_SLOT, key);
  if (remember) localStorage.setItem(KEY_SLOT, key);
  else localStorage.removeItem(KEY_SLOT);
}
export function forgetKey(): void {
  sessionStorage.removeItem(KEY_SLOT);
  localStorage.removeItem(KEY_SLOT);
}

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
