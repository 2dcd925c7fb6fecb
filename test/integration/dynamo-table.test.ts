/**
 * What the DynamoDB table itself holds, item by item, where the ports' contract (test/contract) cannot see it: the
 * TTL attribute DynamoDB removes items by. DynamoDB Local and the S3 server, started for this file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { appConfig } from '../../lambdas/config/app-config';
import { lifetime, REMOVAL_GRACE_SECONDS, utcDay } from '../../lambdas/core/inbox';
import { documentClient, standInSettings } from '../../lambdas/store/clients';
import { keys } from '../../lambdas/store/dynamo-inbox-store';
import { EXPIRY_ATTRIBUTE, TTL_ATTRIBUTE } from '../../lambdas/store/table-layout';
import { appContext, type AppContext } from '../../lambdas/usecases/context';
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
    expect(await ctx.stores.inboxes.createInbox(inbox)).toBe(true);
    const mail = message(inbox, 1);
    expect(await ctx.stores.inboxes.putMessage(mail, inbox, utcDay(), 100)).toBe('stored');
    expect(await item(keys.inbox(inbox.id))).toMatchObject({ [TTL_ATTRIBUTE]: removal, [EXPIRY_ATTRIBUTE]: inbox.expires_at_epoch });
    expect(await item(keys.address(inbox.email))).toMatchObject({ [TTL_ATTRIBUTE]: removal, [EXPIRY_ATTRIBUTE]: inbox.expires_at_epoch });
    expect(await item(keys.message(inbox.id, mail.id))).toMatchObject({ [TTL_ATTRIBUTE]: removal });
    // What leaves the adapter is the inbox as it was made: the table's attributes stay in the table.
    expect(await ctx.stores.inboxes.getInbox(inbox.id)).toEqual({ ...inbox, message_count: 1 });
    expect(await ctx.stores.inboxes.getMessage(inbox.id, mail.id)).toEqual(mail);
  });

  it('moves with a DELETE to the expiry the use case sets, plus the grace', async () => {
    const inbox = inboxRecord();
    await ctx.stores.inboxes.createInbox(inbox);
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
    expect(await ctx.stores.inboxes.putMessage(message(old, 1), old, utcDay(), 100)).toBe('stored');
    // Its address stays held while it lives, and is free once it has expired.
    expect(await ctx.stores.inboxes.createInbox(inboxRecord({ email: old.email }))).toBe(false);
    const expired = inboxRecord({ ...lifetime(Date.now() - 7_200_000, 3600) });
    await doc.send(new PutCommand({ TableName: LOCAL_TABLE, Item: { ...keys.inbox(expired.id), ...expired } }));
    await doc.send(new PutCommand({ TableName: LOCAL_TABLE, Item: { ...keys.address(expired.email), ...claim, inbox_id: expired.id, [TTL_ATTRIBUTE]: expired.expires_at_epoch } }));
    expect(await ctx.stores.inboxes.putMessage(message(expired, 1), expired, utcDay(), 100)).toBe('gone');
    expect((await ctx.stores.inboxes.inboxesExpiredBy(Math.floor(Date.now() / 1000))).map((i) => i.id)).toContain(expired.id);
    expect(await ctx.stores.inboxes.createInbox(inboxRecord({ email: expired.email }))).toBe(true);
  });
});
