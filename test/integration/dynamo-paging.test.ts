/**
 * DynamoInboxStore against its own DynamoDB Local, with what the shared stack's small test mails never show:
 * message items of ~90 KB, so that a Query stops at DynamoDB's 1 MB read limit long before `limit` items, and a
 * parallel burst on one account's day-usage item, so that transactions conflict.
 */
import http from 'node:http';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { newInboxId, newMessageId } from '../../lambdas/core/ids';
import { epochSeconds, lifetime, utcDay } from '../../lambdas/core/inbox';
import type { InboxRecord, MessageRecord } from '../../lambdas/core/model';
import { DynamoInboxStore } from '../../lambdas/store/dynamo-inbox-store';
import { PUT_ATTEMPTS } from '../../lambdas/store/dynamo-put-message';
import { ensureTable } from '../../local/bootstrap';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/ports';

jest.setTimeout(180_000);

const TABLE = 'paging';
let dynamo: DynamoDbLocal;
let doc: DynamoDBDocumentClient;
let store: DynamoInboxStore;
/** TransactionConflict cancellations the burst met (see the wrapper below). */
let conflicts = 0;
/** Transactions sent per message id. */
const attempts = new Map<string, number>();

const usageKeyOf = (command: TransactWriteCommand): string | undefined => {
  const key = command.input.TransactItems?.map((t) => t.Update?.Key?.pk as string | undefined).find((pk) => pk?.startsWith('USAGE#'));
  return key;
};

beforeAll(async () => {
  dynamo = await startDynamoDbLocal({ host: '127.0.0.1', port: await freePort() }, () => undefined);
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // One socket per call of the burst, so that all 500 transactions are in flight at once.
    requestHandler: new NodeHttpHandler({ httpAgent: new http.Agent({ keepAlive: true, maxSockets: 500 }) }),
  });
  await ensureTable(client, TABLE);
  doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  // DynamoDB Local runs transactions one after another and never answers TransactionConflict; DynamoDB cancels a
  // transaction whose item another transaction is writing at that moment. The wrapper does what DynamoDB does for
  // the day-usage item: a transaction that finds one in flight on the same item is cancelled with TransactionConflict.
  const send = doc.send.bind(doc) as (command: unknown) => Promise<unknown>;
  const inFlight = new Set<string>();
  (doc as { send: unknown }).send = async (command: unknown) => {
    const usage = command instanceof TransactWriteCommand ? usageKeyOf(command) : undefined;
    if (usage && inFlight.has(usage)) {
      conflicts++;
      const id = (command as TransactWriteCommand).input.TransactItems![0].Put!.Item!.id as string;
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      throw new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, TransactionConflict]',
        $metadata: {},
        CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
      });
    }
    if (usage) {
      const id = (command as TransactWriteCommand).input.TransactItems![0].Put!.Item!.id as string;
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      inFlight.add(usage);
    }
    try {
      return await send(command);
    } finally {
      if (usage) inFlight.delete(usage);
    }
  };
  store = new DynamoInboxStore(doc, TABLE);
});
afterAll(async () => {
  doc?.destroy();
  await dynamo?.stop();
});

let accounts = 0;
async function newInbox(accountId = `acct_${++accounts}`): Promise<InboxRecord> {
  const id = newInboxId();
  const inbox: InboxRecord = {
    id,
    email: `${id}@paging.test`,
    account_id: accountId,
    plan: 'enterprise',
    ...lifetime(Date.now(), 86_400),
    ttl: 86_400,
    message_count: 0,
  };
  expect(await store.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
  return inbox;
}

function message(inbox: InboxRecord, id: string, bodyBytes: number): MessageRecord {
  return {
    id,
    inbox_id: inbox.id,
    from: 'sender@example.com',
    from_name: null,
    to: inbox.email,
    subject: `message ${id}`,
    received_at: new Date().toISOString(),
    size: bodyBytes,
    text: 'x'.repeat(bodyBytes),
    attachments: [],
    codes: [],
    links: [],
    auth: { spf: 'PASS', dkim: 'PASS', dmarc: 'PASS', spam: 'PASS', virus: 'PASS' },
    raw_key: `inboxes/${inbox.id}/${id}/raw.eml`,
  };
}

const BIG = 90 * 1024;
const day = () => utcDay();

describe('paging over message items of ~90 KB (a Query stops at 1 MB)', () => {
  let inbox: InboxRecord;
  const ids: string[] = [];

  beforeAll(async () => {
    inbox = await newInbox();
    const start = Date.now() - 60_000;
    for (let i = 0; i < 60; i++) {
      const id = newMessageId(start + i * 10);
      ids.push(id);
      expect(await store.putMessage(message(inbox, id, BIG), inbox, { nowEpoch: epochSeconds(Date.now()), day: day(), dailyLimit: 10_000 })).toBe('stored');
    }
  });

  it.each([100, 25, 7, 1])('lists every message exactly once, newest first, with limit %i', async (limit) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.listMessages(inbox.id, limit, cursor);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      seen.push(...page.items.map((m) => m.id));
      cursor = page.last;
      expect(++pages).toBeLessThan(100);
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    // Summaries only: no body came back.
    expect(Object.keys((await store.listMessages(inbox.id, 1)).items[0]).sort()).toEqual(['from', 'from_name', 'id', 'received_at', 'size', 'subject']);
  });

  it('reads a bounded amount per page: a page of 100 ends short with a cursor, not at 1 MB without one', async () => {
    const first = await store.listMessages(inbox.id, 100);
    // 1 MB holds 11 items of 90 KB; four Query calls hold 44–45.
    expect(first.items.length).toBeGreaterThan(11);
    expect(first.items.length).toBeLessThan(60);
    expect(first.last).toBe(first.items[first.items.length - 1].id);
  });

  it('messagesSince returns every message exactly once, oldest first, across pages', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let calls = 0; ; calls++) {
      const page = await store.messagesSince(inbox.id, after, 100);
      seen.push(...page.items.map((m) => m.id));
      if (!page.last) break;
      after = page.last;
      expect(calls).toBeLessThan(20);
    }
    expect(seen).toEqual(ids);
  });

  it('messagesSince returns each new message as it arrives', async () => {
    const fresh = await newInbox();
    let after: string | undefined;
    const start = Date.now();
    for (let i = 0; i < 15; i++) {
      // A few big messages arrive between two polls, as they would while a client waits.
      const arrived = [0, 1, 2].map((k) => newMessageId(start + i * 10 + k));
      for (const id of arrived) expect(await store.putMessage(message(fresh, id, BIG), fresh, { nowEpoch: epochSeconds(Date.now()), day: day(), dailyLimit: 10_000 })).toBe('stored');
      const seen: string[] = [];
      for (;;) {
        const page = await store.messagesSince(fresh.id, after, 100);
        seen.push(...page.items.map((m) => m.id));
        if (page.items.length) after = page.items[page.items.length - 1].id;
        if (!page.last) break;
      }
      expect(seen).toEqual(arrived);
    }
  });
});

it('a parallel burst of 500 messages to one account: every one stored, TransactionConflicts retried inside putMessage (conflicts as DynamoDB raises them)', async () => {
  const account = 'acct_burst';
  const inboxes = await Promise.all(Array.from({ length: 10 }, () => newInbox(account)));
  const start = Date.now();
  conflicts = 0;
  attempts.clear();
  const results = await Promise.allSettled(
    Array.from({ length: 500 }, (_, i) => {
      const inbox = inboxes[i % inboxes.length];
      return store.putMessage(message(inbox, newMessageId(start + i), 2_000), inbox, { nowEpoch: epochSeconds(Date.now()), day: day(), dailyLimit: 10_000 });
    }),
  );
  const ms = Date.now() - start;
  const failed = results.filter((r) => r.status === 'rejected');
  const most = Math.max(...attempts.values());
  console.log(`burst: 500 putMessage in ${ms} ms, ${conflicts} TransactionConflict cancellations retried, most attempts for one message ${most} of ${PUT_ATTEMPTS}, ${failed.length} failed`);
  expect(conflicts).toBeGreaterThan(0);
  expect(failed.map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
  expect(results.map((r) => (r as PromiseFulfilledResult<string>).value)).toEqual(Array(500).fill('stored'));
  expect(await store.usage(account, day())).toBe(500);
  for (const inbox of inboxes) expect((await store.getInbox(inbox.id))!.message_count).toBe(50);
});
