/** Hash routes: deep links (`#/inboxes/<id>/messages/<mid>`) that back and forward move between. */
import { useEffect, useState } from 'preact/hooks';

export type Route = { name: 'inboxes' } | { name: 'inbox'; inboxId: string } | { name: 'message'; inboxId: string; messageId: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'inboxes' && parts[1]) {
    if (parts[2] === 'messages' && parts[3]) return { name: 'message', inboxId: parts[1], messageId: parts[3] };
    return { name: 'inbox', inboxId: parts[1] };
  }
  return { name: 'inboxes' };
}

export const hrefOf = (route: Route): string =>
  route.name === 'inboxes'
    ? '#/'
    : route.name === 'inbox'
      ? `#/inboxes/${encodeURIComponent(route.inboxId)}`
      : `#/inboxes/${encodeURIComponent(route.inboxId)}/messages/${encodeURIComponent(route.messageId)}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
