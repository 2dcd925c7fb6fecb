/**
 * The records the storage contract writes (contract.ts and the suites beside it), apart from the suites so that
 * they import this and not one another.
 */
import { messageIdFrom, newInboxId } from '../../lambdas/core/ids';
import { lifetime } from '../../lambdas/core/inbox';
import type { InboxRecord, MessageRecord } from '../../lambdas/core/model';
import { DISABLED_VERDICTS } from '../../lambdas/core/model';
import { blobKeys } from '../../lambdas/core/ports';

export const DAY = '2026-11-23';
let counter = 0;
/** A name no other test of the run has (a store is shared by the whole suite). */
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

export function inboxRecord(overrides: Partial<InboxRecord> = {}): InboxRecord {
  return {
    id: newInboxId(),
    email: `${unique('c')}@tempmail.local`,
    account_id: unique('acct_'),
    plan: 'enterprise',
    ttl: 3600,
    message_count: 0,
    ...lifetime(Date.now(), 3600),
    ...overrides,
  };
}

export function message(inbox: InboxRecord, n: number, extra: Partial<MessageRecord> = {}): MessageRecord {
  const id = messageIdFrom(`${inbox.id}-${n}`, Date.UTC(2026, 10, 23, 12, 0, 0, n));
  return {
    id,
    inbox_id: inbox.id,
    from: `sender${n}@example.com`,
    from_name: null,
    to: inbox.email,
    subject: `message ${n}`,
    received_at: new Date(Date.UTC(2026, 10, 23, 12, 0, 0, n)).toISOString(),
    size: 100 + n,
    text: `body ${n}`,
    html: '',
    attachments: [],
    codes: [],
    links: [],
    auth: DISABLED_VERDICTS,
    raw_key: blobKeys.raw(inbox.id, id),
    ...extra,
  };
}
