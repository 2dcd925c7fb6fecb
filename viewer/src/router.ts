/** Hash routes: deep links (`#/inboxes/<id>/messages/<mid>`) that back and forward move between. */
import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route } from './routes';

export { hrefOf, parseRoute, type Route } from './routes';

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
