/** The viewer's hash routes (viewer/src/routes.ts): deep links, and links it cannot read. */
import { hrefOf, parseRoute } from '../../viewer/src/routes';

it('reads the inbox list, an inbox and a message from their links, and writes them back', () => {
  expect(parseRoute('')).toEqual({ name: 'inboxes' });
  expect(parseRoute('#/')).toEqual({ name: 'inboxes' });
  expect(parseRoute('#/inboxes/inbox_1')).toEqual({ name: 'inbox', inboxId: 'inbox_1' });
  const message = { name: 'message', inboxId: 'inbox 1', messageId: 'msg_1' } as const;
  expect(parseRoute(hrefOf(message))).toEqual(message);
});

it('shows the not-found view for a link whose percent-encoding is malformed, instead of throwing', () => {
  for (const hash of ['#/inboxes/%E0%A4%A', '#/inboxes/inbox_1/messages/%', '#/%zz']) {
    expect({ hash, route: parseRoute(hash) }).toEqual({ hash, route: { name: 'not-found' } });
  }
  expect(hrefOf({ name: 'not-found' })).toBe('#/');
});
