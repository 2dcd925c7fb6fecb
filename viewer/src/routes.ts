/**
 * The viewer's hash routes as data: deep links (`#/inboxes/<id>/messages/<mid>`) read and written without the DOM,
 * so that they are tested on their own; router.ts follows them in the page.
 */
export type Route =
  | { name: 'inboxes' }
  | { name: 'inbox'; inboxId: string }
  | { name: 'message'; inboxId: string; messageId: string }
  | { name: 'not-found' };

/** A segment decoded, or null when its percent-encoding is malformed (`%E0%A4%A`): decodeURIComponent throws then. */
function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** A link the viewer cannot read is the not-found view, never an exception that leaves the page blank. */
export function parseRoute(hash: string): Route {
  const parts: string[] = [];
  for (const segment of hash.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    const part = decodeSegment(segment);
    if (part === null) return { name: 'not-found' };
    parts.push(part);
  }
  if (parts[0] === 'inboxes' && parts[1]) {
    if (parts[2] === 'messages' && parts[3]) return { name: 'message', inboxId: parts[1], messageId: parts[3] };
    return { name: 'inbox', inboxId: parts[1] };
  }
  return { name: 'inboxes' };
}

export const hrefOf = (route: Route): string =>
  route.name === 'inboxes' || route.name === 'not-found'
    ? '#/'
    : route.name === 'inbox'
      ? `#/inboxes/${encodeURIComponent(route.inboxId)}`
      : `#/inboxes/${encodeURIComponent(route.inboxId)}/messages/${encodeURIComponent(route.messageId)}`;
