/**
 * InboxStore on one DynamoDB table with generic keys (DESIGN §4): an inbox's items and its address claim, their
 * lifetime and removal. The reads of its messages are in dynamo-message-reads.ts, storing one in
 * dynamo-put-message.ts, the account-wide items (keys, storage usage) in dynamo-account-store.ts.
 */
import { BatchGetCommand, DeleteCommand, GetCommand, QueryCommand, UpdateCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { InboxPosition } from '../core/cursor';
import { removalEpoch } from '../core/inbox';
import type { InboxListing, InboxRecord, InboxRoute, MessageRecord, MessageSummary } from '../core/model';
import type { InboxStore, KeyStore, MessagePage, Page, PutRules } from '../core/ports';
import type { MessageFilter } from '../core/search';
import { cancellationCodes, failedWrites, isConditionFailure, readPages, strip, transactNamed, transactWrite, type NamedWrites, type Table, type TableWrite } from './dynamo-items';
import { DynamoAccountStore } from './dynamo-account-store';
import { expiryIs, lifetimeAttributes, lifetimeNames } from './dynamo-lifetime';
import { listMessages, messageRange, messagesSince } from './dynamo-message-reads';
import { putMessage, PUT_ATTEMPTS } from './dynamo-put-message';
import { ACCOUNT_INDEX, EXPIRY_ATTRIBUTE, expiryOf, inboxFromItem, inboxIndexKeys, listingIndex, keys, TTL_ATTRIBUTE } from '../layout/table-layout';

/** Positive when `a` is newer than `b`: a later created_at, or the same and a greater id. */
const compareAge = (a: InboxPosition, b: InboxPosition): number =>
  a.created_at !== b.created_at ? (a.created_at > b.created_at ? 1 : -1) : a.id > b.id ? 1 : a.id < b.id ? -1 : 0;

export class DynamoInboxStore extends DynamoAccountStore implements InboxStore, KeyStore {
  /** The table, for the functions of the modules beside this one. */
  private get at(): Table {
    return { db: this.db, table: this.table };
  }

  async createInbox(inbox: InboxRecord, nowEpoch: number): Promise<boolean> {
    const writes: NamedWrites<'inbox' | 'address'> = {
      inbox: {
        Put: {
          // Only inbox items carry the account index's key, and only grouped ones the group index's: both are sparse (table-layout.ts).
          Item: { ...keys.inbox(inbox.id), ...inbox, ...lifetimeAttributes(inbox.expires_at_epoch), ...inboxIndexKeys(inbox) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      address: {
        // core/inbox.ts claimIsFree: free when absent or when the inbox holding it has expired by now.
        Put: {
          // The claim also carries what mail routing needs, so a recipient costs one read.
          Item: {
            ...keys.address(inbox.email),
            inbox_id: inbox.id,
            account_id: inbox.account_id,
            plan: inbox.plan,
            ...lifetimeAttributes(inbox.expires_at_epoch),
            created_at: inbox.created_at,
          },
          ConditionExpression: `attribute_not_exists(pk) OR ${expiryIs('<=', ':now')}`,
          ExpressionAttributeValues: { ':now': nowEpoch },
        },
      },
    };
    try {
      await transactNamed(this.db, this.table, writes);
      return true;
    } catch (error) {
      if (failedWrites(error, writes)?.has('address')) return false;
      throw error;
    }
  }

  async getInbox(id: string): Promise<InboxRecord | null> {
    const out = await this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.inbox(id), ConsistentRead: true })));
    return inboxFromItem(out.Item);
  }

  /**
   * The account index (a group's, with `group`) orders its inboxes by created_at alone (whole seconds), and inboxes of one second
   * in an order of DynamoDB's own, not by id. So a page reads whole seconds and sorts them by (created_at, id), both
   * descending, as the embedded store does; a cursor resumes within its second, skipping the ids it has shown.
   * Creating is rate-limited, so a second holds a few inboxes of one account, and a page reads at most that many more.
   */
  async listInboxes(accountId: string, limit: number, after?: InboxPosition, group?: string): Promise<{ items: InboxListing[]; last?: InboxPosition }> {
    const read: InboxListing[] = [];
    const { index, key } = listingIndex(accountId, group);
    const query = {
      TableName: this.table,
      IndexName: index.name,
      KeyConditionExpression: after ? '#account = :account AND #created <= :created' : '#account = :account',
      ExpressionAttributeNames: { '#account': index.partitionKey, ...(after ? { '#created': index.sortKey } : {}) },
      ExpressionAttributeValues: { ':account': key, ...(after ? { ':created': after.created_at } : {}) },
      ScanIndexForward: false,
      Limit: limit + 1,
    };
    for await (const page of readPages(this.db, { query })) {
      for (const item of page.items) {
        const inbox = inboxFromItem(item)!;
        if (!after || compareAge(inbox, after) < 0) read.push(inbox);
      }
      // Enough once limit + 1 are read and the last one read is of an older second than the (limit + 1)th.
      if (read.length > limit && read[read.length - 1].created_at < read[limit].created_at) break;
    }
    read.sort((a, b) => compareAge(b, a));
    const shown = read.slice(0, limit);
    const end = shown[shown.length - 1];
    const items = group === undefined ? await this.withGroups(shown) : shown.map((inbox) => ({ ...inbox, group }));
    return { items, last: read.length > limit ? { created_at: end.created_at, id: end.id } : undefined };
  }

  /**
   * The account index does not project `group` (table-layout.ts ACCOUNT_INDEX): a page's inboxes read it from their
   * items, in one BatchGetItem (a page holds at most MAX_PAGE_SIZE, 100, the most one BatchGetItem takes).
   */
  private async withGroups(inboxes: InboxListing[]): Promise<InboxListing[]> {
    const groups = new Map<string, string>();
    let wanted = inboxes.map((inbox) => keys.inbox(inbox.id));
    for (let attempt = 0; wanted.length > 0; attempt++) {
      const request = { Keys: wanted, ProjectionExpression: '#id, #group', ExpressionAttributeNames: { '#id': 'id', '#group': 'group' } };
      const out = await this.call(() => this.db.send(new BatchGetCommand({ RequestItems: { [this.table]: request } })));
      for (const item of out.Responses?.[this.table] ?? []) if (typeof item.group === 'string') groups.set(item.id as string, item.group);
      wanted = (out.UnprocessedKeys?.[this.table]?.Keys ?? []) as typeof wanted;
      if (wanted.length > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
    }
    return inboxes.map((inbox) => (groups.has(inbox.id) ? { ...inbox, group: groups.get(inbox.id) } : inbox));
  }

  /** A count of the account index, read until `atMost` (each page reads at most 1 MB). */
  async liveInboxCount(accountId: string, epoch: number, atMost: number): Promise<number> {
    let count = 0;
    const query = {
      TableName: this.table,
      IndexName: ACCOUNT_INDEX.name,
      KeyConditionExpression: '#account = :account',
      // The index holds inbox items only, each written with EXPIRY_ATTRIBUTE, the one expiry it projects
      // (table-layout.ts): the TTL attribute, which expiryIs also reads for older items, is not in it.
      FilterExpression: '#expiry > :now',
      ExpressionAttributeNames: { '#account': ACCOUNT_INDEX.partitionKey, '#expiry': EXPIRY_ATTRIBUTE },
      ExpressionAttributeValues: { ':account': accountId, ':now': epoch },
      Select: 'COUNT' as const,
    };
    for await (const page of readPages(this.db, { query })) {
      count += page.count;
      if (count >= atMost) break;
    }
    return Math.min(count, atMost);
  }

  async inboxForAddress(address: string): Promise<InboxRoute | null> {
    const out = await this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.address(address), ConsistentRead: true })));
    const claim = out.Item as { inbox_id: string; account_id?: string; plan?: InboxRoute['plan']; created_at?: string } | undefined;
    if (!claim) return null;
    // Claims written before they carried the routing fields: read the inbox itself.
    if (!claim.account_id || !claim.plan) return this.getInbox(claim.inbox_id);
    const route: InboxRoute = { id: claim.inbox_id, email: address, account_id: claim.account_id, plan: claim.plan, expires_at_epoch: expiryOf(out.Item!) };
    return claim.created_at ? { ...route, created_at: claim.created_at } : route;
  }

  /**
   * Writes `write` to the inbox item (not marked deleting, holding the stored bytes read) together with taking those
   * bytes off its account's usage, in one transaction; read again and retried when a message was stored or deleted
   * in between. Nothing when the item is gone or already marked deleting (its bytes left then): `write` alone then
   * (`alone`), if given.
   */
  private async releasingInboxBytes(inboxId: string, write: (condition: string, values: Record<string, unknown>) => TableWrite, alone?: TableWrite): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const item = (await this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.inbox(inboxId), ConsistentRead: true })))).Item;
      if (!item || item.deleting) {
        if (alone) {
          await transactWrite(this.db, this.table, [alone]).catch((error) => {
            if (!isConditionFailure(error)) throw error;
          });
        }
        return;
      }
      const bytes = Number(item.stored_bytes ?? 0);
      const condition = `attribute_exists(pk) AND attribute_not_exists(deleting) AND ${bytes ? 'stored_bytes = :bytes' : '(attribute_not_exists(stored_bytes) OR stored_bytes = :bytes)'}`;
      const writes: TableWrite[] = [write(condition, { ':bytes': bytes })];
      if (bytes) writes.push({ Update: { Key: keys.storage(String(item.account_id)), UpdateExpression: 'ADD #bytes :minus', ExpressionAttributeNames: { '#bytes': 'bytes' }, ExpressionAttributeValues: { ':minus': -bytes } } });
      try {
        await transactWrite(this.db, this.table, writes);
        return;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes || attempt >= PUT_ATTEMPTS || !(codes.includes('ConditionalCheckFailed') || codes.includes('TransactionConflict'))) throw error;
      }
    }
  }

  async deleteInbox(inbox: InboxRecord): Promise<void> {
    // The inbox item goes first: ingest's transaction requires it, so no message can be added behind our back. Its
    // stored bytes leave its account with it, unless it was marked deleting.
    const remove: TableWrite = { Delete: { Key: keys.inbox(inbox.id) } };
    await this.releasingInboxBytes(inbox.id, (condition, values) => ({ Delete: { Key: keys.inbox(inbox.id), ConditionExpression: condition, ExpressionAttributeValues: values } }), remove);
    const query = { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.inbox(inbox.id).pk }, ProjectionExpression: 'pk, sk' };
    for await (const page of readPages(this.db, { query })) {
      for (let i = 0; i < page.items.length; i += 25) await this.batchDelete(page.items.slice(i, i + 25) as { pk: string; sk: string }[]);
    }
    try {
      await this.call(() =>
        this.db.send(
          new DeleteCommand({
            TableName: this.table,
            Key: keys.address(inbox.email),
            ConditionExpression: 'inbox_id = :id',
            ExpressionAttributeValues: { ':id': inbox.id },
          }),
        ),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error; // claimed by a newer inbox already
    }
  }

  async markInboxDeleting(inbox: InboxRecord, expiredAtEpoch: number): Promise<void> {
    const mark = (condition: string, values: Record<string, unknown>): TableWrite => ({
      Update: {
        Key: keys.inbox(inbox.id),
        UpdateExpression: 'SET deleting = :yes, #expiry = :e, #ttl = :purge',
        ConditionExpression: condition,
        ExpressionAttributeNames: lifetimeNames,
        ExpressionAttributeValues: { ...values, ':yes': true, ':e': expiredAtEpoch, ':purge': removalEpoch(expiredAtEpoch) },
      },
    });
    // Marked already (a retried DELETE): its expiry is moved again, its bytes left the first time.
    await this.releasingInboxBytes(inbox.id, mark, mark('attribute_exists(pk)', {}));
    await this.call(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.address(inbox.email),
          UpdateExpression: 'SET #expiry = :e, #ttl = :purge',
          ConditionExpression: 'inbox_id = :id',
          ExpressionAttributeNames: lifetimeNames,
          ExpressionAttributeValues: { ':e': expiredAtEpoch, ':purge': removalEpoch(expiredAtEpoch), ':id': inbox.id },
        }),
      ),
    ).catch((error) => {
      if (!isConditionFailure(error)) throw error; // claimed by a newer inbox already
    });
  }

  async deleteMessages(inboxId: string, max: number): Promise<number> {
    const page = await this.call(() =>
      this.db.send(
        new QueryCommand({
          TableName: this.table,
          ...messageRange(inboxId),
          ProjectionExpression: 'pk, sk',
          Limit: max,
        }),
      ),
    );
    const items = (page.Items ?? []) as { pk: string; sk: string }[];
    for (let i = 0; i < items.length; i += 25) await this.batchDelete(items.slice(i, i + 25));
    return items.length;
  }

  private async batchDelete(items: { pk: string; sk: string }[]): Promise<void> {
    let requests = items.map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      const out = await this.call(() => this.db.send(new BatchWriteCommand({ RequestItems: { [this.table]: requests } })));
      requests = (out.UnprocessedItems?.[this.table] ?? []) as typeof requests;
      if (requests.length > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
    }
  }

  listMessages(inboxId: string, limit: number, after?: string, filter?: MessageFilter): Promise<MessagePage> {
    return listMessages(this.at, inboxId, limit, after, filter);
  }

  messagesSince(inboxId: string, after: string | undefined, limit: number): Promise<Page<MessageSummary>> {
    return messagesSince(this.at, inboxId, after, limit);
  }

  async getMessage(inboxId: string, messageId: string): Promise<MessageRecord | null> {
    const out = await this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.message(inboxId, messageId) })));
    // The TTL attribute is the table's business, not the message's.
    return strip<MessageRecord>(out.Item, TTL_ATTRIBUTE);
  }

  putMessage(message: MessageRecord, inbox: InboxRoute, rules: PutRules) {
    return putMessage(this.at, message, inbox, rules);
  }

  async deleteMessage(inboxId: string, messageId: string): Promise<boolean> {
    const [message, inbox] = await Promise.all([
      this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.message(inboxId, messageId), ConsistentRead: true, ProjectionExpression: 'stored_bytes' }))),
      this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.inbox(inboxId), ConsistentRead: true, ProjectionExpression: 'account_id, deleting' }))),
    ]);
    const bytes = Number(message.Item?.stored_bytes ?? 0);
    // An inbox marked deleting gave its bytes back already: then only the count changes.
    const accounted = bytes > 0 && inbox.Item && !inbox.Item.deleting;
    try {
      await transactWrite(this.db, this.table, [
        { Delete: { Key: keys.message(inboxId, messageId), ConditionExpression: 'attribute_exists(pk)' } },
        {
          Update: {
            Key: keys.inbox(inboxId),
            UpdateExpression: bytes ? 'ADD message_count :minus, stored_bytes :freed' : 'ADD message_count :minus',
            ConditionExpression: accounted ? 'attribute_exists(pk) AND attribute_not_exists(deleting)' : 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':minus': -1, ...(bytes ? { ':freed': -bytes } : {}) },
          },
        },
        ...(accounted ? [{ Update: { Key: keys.storage(String(inbox.Item!.account_id)), UpdateExpression: 'ADD #bytes :freed', ExpressionAttributeNames: { '#bytes': 'bytes' }, ExpressionAttributeValues: { ':freed': -bytes } } }] : []),
      ]);
      return true;
    } catch (error) {
      if (cancellationCodes(error)) return false;
      throw error;
    }
  }

  async usage(accountId: string, day: string): Promise<number> {
    const out = await this.call(() => this.db.send(new GetCommand({ TableName: this.table, Key: keys.usage(accountId, day) })));
    return (out.Item?.emails as number | undefined) ?? 0;
  }

  async inboxesExpiredBy(epoch: number): Promise<InboxRecord[]> {
    return (await this.scanAll(`sk = :inbox AND ${expiryIs('<=', ':epoch')}`, { ':inbox': 'INBOX', ':epoch': epoch })).map((item) => inboxFromItem(item)!);
  }
}
