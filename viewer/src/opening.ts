/**
 * The first inbox page and the domains, asked for as soon as the script runs: the inbox list takes them instead of
 * asking after its first render.
 */
import { apiClient, storedKey } from './api';
import { parseRoute } from './router';

/** Inboxes and messages asked for per page. */
export const PAGE = 50;

/** Asked for only when the page opens on the inbox list with a key already there. */
const opening = (() => {
  const key = storedKey();
  if (!key || parseRoute(location.hash).name !== 'inboxes') return null;
  const api = apiClient(key);
  const settle = <T,>(p: Promise<T>) => (p.catch(() => undefined), p);
  return { key, inboxes: settle(api.listInboxes({ limit: PAGE })), domains: settle(api.listDomains()) };
})();
let openingUsed = false;

/** The opening requests, once, for this key; later loads ask anew. */
export function takeOpening(key: string) {
  if (openingUsed || !opening || opening.key !== key) return null;
  openingUsed = true;
  return opening;
}

