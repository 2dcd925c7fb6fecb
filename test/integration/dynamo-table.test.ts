/**
 * What the DynamoDB table itself holds, item by item, where the ports' contract (test/contract) cannot see it: the
 * TTL attribute DynamoDB removes items by, the account index (only inbox items, only what the list shows); and what the table's stream sets off: an inbox's objects deleted when its
 * item is removed. DynamoDB Local and the S3 server, started for this file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { handler as cleanupHandler } from '../../lambdas/cleanup/inbox-objects';
import { blobKeys } from '../../lambdas/core/ports';
import { appConfig } from '../../lambdas/config/app-config';
import { epochSeconds, lifetime, REMOVAL_GRACE_SECONDS, utcDay } from '../../lambdas/core/inbox';
import { standInSettings } from '../../lambdas/layout/stand-ins';
import { documentClient } from '../../lambdas/store/clients';
import { ACCOUNT_INDEX, EXPIRY_ATTRIBUTE, keys, TTL_ATTRIBUTE } from '../../lambdas/layout/table-layout';
import { issueKey } from '../../lambdas/usecases/keys';
import { appContext } from '../../lambdas/app/context';
import { installContext } from '../../lambdas/app/current';
import type { AppContext } from '../../lambdas/usecases/context';
import { ensureBucket, ensureTable } from '../../local/bootstrap';
import { LOCAL_BUCKET, LOCAL_TABLE } from '../../local/config';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/ports';
import { startS3Local, type S3Local } from '../../local/s3-local';
import { S3Client } from '@aws-sdk/client-s3';
import { inboxRecord, message } from '../contract/contract';

jest.setTimeout(120_000);

let dataDir: string;
let dynamo: DynamoDbLocal;
let s3: S3Local;
let ctx: AppContext;
let doc: ReturnType<typeof documentClient>;

beforeAll(async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-table-'));
  [dynamo, s3] = await Promise.all([
    freePort().then((port) => startDynamoDbLocal({ host: '127.0.0.1', port, dataDir: path.join(dataDir, 'dynamodb') })),
    freePort().then((port) => startS3Local({ host: '127.0.0.1', port, directory: path.join(dataDir, 's3'), bucket: LOCAL_BUCKET })),
  ]);
  await ensureTable(new DynamoDBClient(standInSettings(dynamo.endpoint)), LOCAL_TABLE);
  await ensureBucket(new S3Client({ forcePathStyle: true, ...standInSettings(s3.endpoint) }), LOCAL_BUCKET);
  ctx = appContext(appConfig({ store: { kind: 'dynamodb', table: LOCAL_TABLE, bucket: LOCAL_BUCKET, endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint } } }));
  doc = documentClient(dynamo.endpoint);
});
afterAll(async () => {
  installContext(undefined);
  await ctx?.stores.close();
  await Promise.all([dynamo?.stop(), s3?.stop()]);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const item = async (key: { pk: string; sk: string }) => (await doc.send(new GetCommand({ TableName: LOCAL_TABLE, Key: key }))).Item;

describe('the TTL attribute', () => {
  it('is the one the table expires items by', async () => {
    const out = await new DynamoDBClient(standInSettings(dynamo.endpoint)).send(new DescribeTimeToLiveCommand({ TableName: LOCAL_TABLE }));
    expect(out.TimeToLiveDescription?.AttributeName).toBe(TTL_ATTRIBUTE);
  });

  it('holds the expiry plus the removal grace on the inbox, its address claim and its messages, so "inbox expired" lasts the grace', async () => {
    const inbox = inboxRecord();
    const removal = inbox.expires_at_epoch + REMOVAL_GRACE_SECONDS;
    expect(await ctx.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()))).toBe(true);
    const mail = message(inbox, 1);
    expect(await ctx.stores.inboxes.putMessage(mail, inbox, { nowEpoch: epochSeconds(Date.now()), day: utcDay(), dailyLimit: 100 })).toBe('stored');
    expect(await item(keys.inbox(inbox.id))).toMatchObject({ [TTL_ATTRIBUTE]: removal, [EXPIRY_ATTRIBUTE]: inbox.expires_at_epoch });
    expect(await item(keys.address(inbox.email))).toMatchObject({ [TTL_ATTRIBUTE]: removal, [EXPIRY_ATTRIBUTE]: inbox.expires_at_epoch });
    expect(await item(keys.message(inbox.id, mail.id))).toMatchObject({ [TTL_ATTRIBUTE]: removal });
    // What leaves the adapter is the inbox as it was made: the table's attributes stay in the table.
    expect(await ctx.stores.inboxes.getInbox(inbox.id)).toEqual({ ...inbox, message_count: 1 });
    expect(await ctx.stores.inboxes.getMessage(inbox.id, mail.id)).toEqual(mail);
  });

  it('moves with a DELETE to the expiry the use case sets, plus the grace', async () => {
    const inbox = inboxRecord();
    await ctx.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
    const past = Math.floor(Date.now() / 1000) - REMOVAL_GRACE_SECONDS - 1;
    await ctx.stores.inboxes.markInboxDeleting(inbox, past);
    expect(await item(keys.inbox(inbox.id))).toMatchObject({ [TTL_ATTRIBUTE]: past + REMOVAL_GRACE_SECONDS, [EXPIRY_ATTRIBUTE]: past });
    expect(await item(keys.address(inbox.email))).toMatchObject({ [TTL_ATTRIBUTE]: past + REMOVAL_GRACE_SECONDS, [EXPIRY_ATTRIBUTE]: past });
  });

  it('reads items written before the expiry had its own attribute: their TTL attribute is their expiry', async () => {
    const old = inboxRecord();
    // As the adapter wrote them before: the record as is, the expiry in the TTL attribute (whose name it shares).
    await doc.send(new PutCommand({ TableName: LOCAL_TABLE, Item: { ...keys.inbox(old.id), ...old } }));
    const claim = { inbox_id: old.id, account_id: old.account_id, plan: old.plan, [TTL_ATTRIBUTE]: old.expires_at_epoch, created_at: old.created_at };
    await doc.send(new PutCommand({ TableName: LOCAL_TABLE, Item: { ...keys.address(old.email), ...claim } }));
    expect(await ctx.stores.inboxes.getInbox(old.id)).toEqual(old);
    expect((await ctx.stores.inboxes.inboxForAddress(old.email))?.expires_at_epoch).toBe(old.expires_at_epoch);
    expect(await ctx.stores.inboxes.putMessage(message(old, 1), old, { nowEpoch: epochSeconds(Date.now()), day: utcDay(), dailyLimit: 100 })).toBe('stored');
    // Its address stays held while it lives, and is free once it has expired.
    expect(await ctx.stores.inboxes.createInbox(inboxRecord({ email: old.email }), epochSeconds(Date.now()))).toBe(false);
    const expired = inboxRecord({ ...lifetime(Date.now() - 7_200_000, 3600) });
    await doc.send(new PutCommand({ TableName: LOCAL_TABLE, Item: { ...keys.inbox(expired.id), ...expired } }));
    await doc.send(new PutCommand({ TableName: LOCAL_TABLE, Item: { ...keys.address(expired.email), ...claim, inbox_id: expired.id, [TTL_ATTRIBUTE]: expired.expires_at_epoch } }));
    expect(await ctx.stores.inboxes.putMessage(message(expired, 1), expired, { nowEpoch: epochSeconds(Date.now()), day: utcDay(), dailyLimit: 100 })).toBe('gone');
    expect((await ctx.stores.inboxes.inboxesExpiredBy(Math.floor(Date.now() / 1000))).map((i) => i.id)).toContain(expired.id);
    expect(await ctx.stores.inboxes.createInbox(inboxRecord({ email: expired.email }), epochSeconds(Date.now()))).toBe(true);
  });
});

describe("an inbox item's REMOVE on the stream", () => {
  /** A stream record as DynamoDB sends it when an item is removed (by TTL: the service is the deleter). */
  const removal = (key: { pk: string; sk: string }, oldImage: Record<string, unknown>, n: number): DynamoDBRecord => ({
    eventID: `e${n}`,
    eventName: 'REMOVE',
    eventSource: 'aws:dynamodb',
    dynamodb: { Keys: marshall(key) as never, OldImage: marshall({ ...key, ...oldImage }, { removeUndefinedValues: true }) as never, SequenceNumber: String(n), StreamViewType: 'NEW_AND_OLD_IMAGES' },
    userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
  } as DynamoDBRecord);

  it("deletes the removed inbox's objects and only them", async () => {
    installContext(ctx);
    const gone = inboxRecord();
    const kept = inboxRecord();
    const mails = [gone, kept].map((inbox) => message(inbox, 1));
    for (const [i, inbox] of [gone, kept].entries()) {
      await ctx.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
      await ctx.stores.inboxes.putMessage(mails[i], inbox, { nowEpoch: epochSeconds(Date.now()), day: utcDay(), dailyLimit: 100 });
      await ctx.stores.blobs.put(blobKeys.raw(inbox.id, mails[i].id), 'raw mail', 'message/rfc822');
      await ctx.stores.blobs.put(blobKeys.attachment(inbox.id, mails[i].id, 'att_1'), 'attached', 'application/octet-stream');
    }
    // What TTL does: the items go, the objects stay.
    const item = (await doc.send(new GetCommand({ TableName: LOCAL_TABLE, Key: keys.inbox(gone.id) }))).Item!;
    await doc.send(new DeleteCommand({ TableName: LOCAL_TABLE, Key: keys.inbox(gone.id) }));
    await doc.send(new DeleteCommand({ TableName: LOCAL_TABLE, Key: keys.message(gone.id, mails[0].id) }));
    expect(await ctx.stores.blobs.list(blobKeys.inbox(gone.id))).toHaveLength(2);

    const event: DynamoDBStreamEvent = {
      Records: [
        // A message item removed: not an inbox, nothing to do.
        removal(keys.message(kept.id, mails[1].id), {}, 1),
        removal(keys.inbox(gone.id), item, 2),
      ],
    };
    expect(await cleanupHandler(event)).toEqual({ batchItemFailures: [] });
    expect(await ctx.stores.blobs.list(blobKeys.inbox(gone.id))).toEqual([]);
    expect((await ctx.stores.blobs.list(blobKeys.inbox(kept.id))).sort()).toEqual(
      [blobKeys.attachment(kept.id, mails[1].id, 'att_1'), blobKeys.raw(kept.id, mails[1].id)].sort(),
    );
    // A record delivered again finds nothing left, and succeeds.
    expect(await cleanupHandler({ Records: [removal(keys.inbox(gone.id), item, 3)] })).toEqual({ batchItemFailures: [] });
  });

  it("gives an inbox's stored bytes back to its account's storage quota when TTL removed it, and only then", async () => {
    installContext(ctx);
    const account_id = `acct_ttl${Date.now()}`;
    const [expired, deleted, kept] = [inboxRecord({ account_id }), inboxRecord({ account_id }), inboxRecord({ account_id })];
    for (const [i, inbox] of [expired, deleted, kept].entries()) {
      await ctx.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
      expect(await ctx.stores.inboxes.putMessage(message(inbox, i, { stored_bytes: 1_000 * (i + 1) }), inbox, { nowEpoch: epochSeconds(Date.now()), day: utcDay(), dailyLimit: 100, storageLimit: 1_000_000 })).toBe('stored');
    }
    expect(await ctx.stores.inboxes.storageUsed(account_id)).toBe(6_000);
    // A DELETE marked one (its 2,000 bytes left then); TTL removes both items later.
    await ctx.stores.inboxes.markInboxDeleting(deleted, Math.floor(Date.now() / 1000) - 1);
    expect(await ctx.stores.inboxes.storageUsed(account_id)).toBe(4_000);
    const images = [];
    for (const inbox of [expired, deleted]) {
      images.push((await doc.send(new GetCommand({ TableName: LOCAL_TABLE, Key: keys.inbox(inbox.id) }))).Item!);
      await doc.send(new DeleteCommand({ TableName: LOCAL_TABLE, Key: keys.inbox(inbox.id) }));
    }
    // The same removal by a DELETE (not TTL): nothing given back by the stream, the store did it.
    const byUser = { ...removal(keys.inbox(expired.id), images[0], 4), userIdentity: undefined } as DynamoDBRecord;
    expect(await cleanupHandler({ Records: [byUser] })).toEqual({ batchItemFailures: [] });
    expect(await ctx.stores.inboxes.storageUsed(account_id)).toBe(4_000);
    expect(await cleanupHandler({ Records: [removal(keys.inbox(expired.id), images[0], 5), removal(keys.inbox(deleted.id), images[1], 6)] })).toEqual({ batchItemFailures: [] });
    expect(await ctx.stores.inboxes.storageUsed(account_id)).toBe(3_000);
  });
});

describe('the account index', () => {
  const indexItems = async (accountId: string) =>
    (
      await doc.send(
        new QueryCommand({
          TableName: LOCAL_TABLE,
          IndexName: ACCOUNT_INDEX.name,
          KeyConditionExpression: '#account = :account',
          ExpressionAttributeNames: { '#account': ACCOUNT_INDEX.partitionKey },
          ExpressionAttributeValues: { ':account': accountId },
        }),
      )
    ).Items ?? [];

  it("holds an account's inboxes and nothing else of it (claims, keys, webhooks), with only what the list shows", async () => {
    const accountId = `acct_index${Date.now()}`;
    const inbox = inboxRecord({ account_id: accountId });
    await ctx.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
    await issueKey(ctx, 'dev', { accountId });
    const createdAt = new Date().toISOString();
    const hook = { id: `wh_${Date.now()}`, account_id: accountId, url: 'https://example.com/hook', inbox_id: null, events: ['message.received' as const], description: null, secret_sealed: 'sealed', created_at: createdAt, status: 'enabled' as const, disabled_reason: null, disabled_at: null };
    expect(await ctx.stores.webhooks.putWebhook(hook, 10)).toBe(true);

    const items = await indexItems(accountId);
    expect(items.map((i) => i.sk)).toEqual(['INBOX']);
    expect(Object.keys(items[0]).sort()).toEqual(['pk', 'sk', ACCOUNT_INDEX.partitionKey, ACCOUNT_INDEX.sortKey, ...ACCOUNT_INDEX.projected.filter((a) => a !== 'deleting')].sort());
    // The whole index: inbox items only, whoever wrote the rest of the table.
    const all = (await doc.send(new ScanCommand({ TableName: LOCAL_TABLE, IndexName: ACCOUNT_INDEX.name }))).Items ?? [];
    expect(all.length).toBeGreaterThan(0);
    expect(all.filter((i) => i.sk !== 'INBOX')).toEqual([]);

    const { items: listed } = await ctx.stores.inboxes.listInboxes(accountId, 10);
    expect(listed).toEqual([{ id: inbox.id, email: inbox.email, created_at: inbox.created_at, expires_at: inbox.expires_at, expires_at_epoch: inbox.expires_at_epoch, message_count: 0 }]);
    // An inbox being deleted carries `deleting` into the index (the list hides it).
    await ctx.stores.inboxes.markInboxDeleting(inbox, Math.floor(Date.now() / 1000) - 7_200);
    expect((await ctx.stores.inboxes.listInboxes(accountId, 10)).items).toEqual([expect.objectContaining({ id: inbox.id, deleting: true })]);
  });

  it('pages newest first with no filter: every query item is a listed inbox', async () => {
    const accountId = `acct_pages${Date.now()}`;
    const made = [];
    for (let i = 0; i < 5; i++) {
      const inbox = inboxRecord({ account_id: accountId, ...lifetime(Date.now() + i * 1000, 3600) });
      await ctx.stores.inboxes.createInbox(inbox, epochSeconds(Date.now()));
      await issueKey(ctx, 'dev', { accountId });
      made.push(inbox);
    }
    const first = await ctx.stores.inboxes.listInboxes(accountId, 2);
    const second = await ctx.stores.inboxes.listInboxes(accountId, 2, first.last);
    const third = await ctx.stores.inboxes.listInboxes(accountId, 2, second.last);
    expect([...first.items, ...second.items, ...third.items].map((i) => i.id)).toEqual(made.reverse().map((i) => i.id));
    expect(third.last).toBeUndefined();
    // The plan's max_inboxes counts live inboxes from the same index.
    expect(await ctx.stores.inboxes.liveInboxCount(accountId, Math.floor(Date.now() / 1000), 100)).toBe(5);
  });
});
