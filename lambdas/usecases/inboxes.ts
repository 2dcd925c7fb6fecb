/** Inbox use cases: create, read, delete, with ownership and expiry rules applied. */
import { GROUP_RULE, matchDomain, normalizeGroup, normalizeUsername, reservedUsername, usernameFor, USERNAME_RULE } from '../core/address';
import { decodeInboxCursor, encodeInboxCursor, type InboxPosition } from '../core/cursor';
import { badRequest, conflict, notFound } from '../core/errors';
import { INBOX_ID, newInboxId, randomUsername } from '../core/ids';
import { epochSeconds, isExpired, lifetime, REMOVAL_GRACE_SECONDS, resolveTtl } from '../core/inbox';
import { DEFAULT_PAGE_SIZE } from '../core/limits';
import type { Caller, InboxRecord } from '../core/model';
import { blobKeys } from '../core/ports';
import { inboxView } from '../contract/views';
import type { AppContext } from './context';

export interface CreateInboxInput {
  domain?: string;
  username?: string;
  ttl?: number;
  group?: string;
  /** With group, instead of username: the username is derived from both (core/address.ts usernameFor). */
  test_name?: string;
}

/** The group's stored form, or 400. */
function groupOf(group: string): string {
  const normalized = normalizeGroup(group);
  if (!normalized) throw badRequest(GROUP_RULE);
  return normalized;
}

export async function createInbox(ctx: AppContext, caller: Caller, input: CreateInboxInput): Promise<InboxRecord> {
  const { domains, plans } = ctx.settings;
  const domain = input.domain === undefined ? domains[0] : matchDomain(input.domain, domains);
  if (!domain) throw badRequest(`domain must be one of: ${domains.join(', ')}`);
  const ttl = resolveTtl(input.ttl, plans[caller.plan]);
  const group = input.group === undefined ? undefined : groupOf(input.group);
  if (input.test_name !== undefined && (group === undefined || input.username !== undefined)) {
    throw badRequest('test_name derives the username from the group: give it with group, and without username');
  }
  let username: string | null = null;
  const chosen = input.test_name !== undefined ? usernameFor(group!, input.test_name) : input.username;
  if (chosen !== undefined) {
    username = normalizeUsername(chosen);
    if (!username) throw badRequest(USERNAME_RULE);
    const reserved = reservedUsername(username);
    if (reserved) throw badRequest(reserved);
  }
  // Counted before the create, so parallel creates may pass the limit by as many as are in flight (a few: the rate
  // limit's burst); the count stops at the limit, so it reads at most that many inboxes.
  const { max_inboxes: maxInboxes } = plans[caller.plan];
  if ((await ctx.stores.inboxes.liveInboxCount(caller.account_id, epochSeconds(ctx.now()), maxInboxes)) >= maxInboxes) {
    throw conflict(`the ${caller.plan} plan holds at most ${maxInboxes} live inboxes per account; delete one or let one expire first`);
  }
  // A chosen address that is taken is a 409; a random one that collides is simply drawn again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = ctx.now();
    const inbox: InboxRecord = {
      id: newInboxId(now),
      email: `${username ?? randomUsername()}@${domain}`,
      account_id: caller.account_id,
      plan: caller.plan,
      ttl,
      message_count: 0,
      ...lifetime(now, ttl),
      ...(group ? { group } : {}),
    };
    if (await ctx.stores.inboxes.createInbox(inbox, epochSeconds(now))) return inbox;
    if (username) throw conflict(`address ${inbox.email} is already in use by a live inbox`);
  }
  throw conflict('could not find a free random address; try again');
}

/**
 * The caller's live inbox, or 404: another account's inbox is "not found" (never 403), so ids cannot be probed.
 */
export async function ownedInbox(ctx: AppContext, caller: Caller, inboxId: string): Promise<InboxRecord> {
  const inbox = await inboxOf(ctx, caller, inboxId);
  if (isExpired(inbox.expires_at_epoch, ctx.now())) throw notFound(`inbox expired: ${inboxId}`);
  return inbox;
}

/** The caller's inbox, live or expired; one being deleted is gone already (404 `inbox not found`). */
async function inboxOf(ctx: AppContext, caller: Caller, inboxId: string, options: { deleting?: boolean } = {}): Promise<InboxRecord> {
  const inbox = INBOX_ID.test(inboxId) ? await ctx.stores.inboxes.getInbox(inboxId) : null;
  if (!inbox || inbox.account_id !== caller.account_id || (inbox.deleting && !options.deleting)) throw notFound(`inbox not found: ${inboxId}`);
  return inbox;
}

/** The caller's inboxes (those of one group, with `group`), newest first, expired ones marked as such until they are removed. */
export async function listInboxes(ctx: AppContext, caller: Caller, query: { limit?: number; cursor?: string; group?: string }) {
  const after = query.cursor === undefined ? undefined : decodeInboxCursor(query.cursor);
  const group = query.group === undefined ? undefined : groupOf(query.group);
  const page = await ctx.stores.inboxes.listInboxes(caller.account_id, query.limit ?? DEFAULT_PAGE_SIZE, after, group);
  const now = ctx.now();
  return {
    inboxes: page.items.filter((inbox) => !inbox.deleting).map((inbox) => inboxView(inbox, now)),
    ...(page.last ? { next_cursor: encodeInboxCursor(page.last) } : {}),
  };
}

/** Removes the inbox's items and its bucket prefix. Used by the API and by the local sweep. */
export async function removeInbox(ctx: AppContext, inbox: InboxRecord): Promise<void> {
  // Objects first, so a failure leaves the inbox in place and a retried DELETE finishes the job; once more after
  // the items are gone, for anything ingest wrote in between.
  await ctx.stores.blobs.deletePrefix(blobKeys.inbox(inbox.id));
  await ctx.stores.inboxes.deleteInbox(inbox);
  await ctx.stores.blobs.deletePrefix(blobKeys.inbox(inbox.id));
}

/**
 * Deletes the objects of an inbox whose item is gone (AWS: its REMOVE on the table's stream, after DynamoDB's TTL or
 * a DELETE removed it), so that raw mail and attachments go with their inbox instead of at the bucket's lifecycle
 * expiry, up to a month later. The number of objects deleted; none for an id that names no inbox.
 */
export async function removeInboxObjects(ctx: AppContext, inboxId: string): Promise<number> {
  if (!INBOX_ID.test(inboxId)) return 0;
  return ctx.stores.blobs.deletePrefix(blobKeys.inbox(inboxId));
}

/**
 * An inbox DynamoDB's TTL removed (AWS: seen on the table's stream) gives its stored bytes back to its account's
 * storage quota; one a DELETE marked gave them back then, and one the store removed itself (the local sweep) with
 * its removal.
 */
export async function releaseExpiredInboxStorage(ctx: AppContext, inbox: InboxRecord): Promise<void> {
  if (!inbox.deleting && inbox.stored_bytes) await ctx.stores.inboxes.releaseStorage(inbox.account_id, inbox.stored_bytes);
}

/**
 * Runs a delete's first write; when the store is out of room for it (locally, a disk filled by another program: 503)
 * the files of the objects under `prefix` go first and the write runs once more, so that a delete frees space
 * rather than needing it. Ownership is checked before.
 */
export async function withRoomToDelete<T>(ctx: AppContext, prefix: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as Error).name !== 'DependencyUnavailable' || !ctx.stores.releaseObjectFiles || (await ctx.stores.releaseObjectFiles(prefix)) === 0) throw error;
    return write();
  }
}

/**
 * DELETE, in steps that can be resumed: first the inbox is marked deleting and its address freed (it is gone for its
 * owner from then on), then its objects and messages are removed, for at most `deleteBudgetMs`, then the inbox.
 * A large inbox may not finish inside one request: it answers all the same, and a retried DELETE (200, not 404)
 * goes on where it stopped; the sweep (locally) or DynamoDB's TTL removes whatever is left anyway.
 */
export async function deleteInbox(ctx: AppContext, caller: Caller, inboxId: string): Promise<{ finished: boolean }> {
  const inbox = await inboxOf(ctx, caller, inboxId, { deleting: true });
  if (!inbox.deleting && isExpired(inbox.expires_at_epoch, ctx.now())) throw notFound(`inbox expired: ${inboxId}`);
  return { finished: await removeInboxBy(ctx, inbox, ctx.now() + ctx.settings.deleteBudgetMs) };
}

/** The steps of a DELETE for one inbox, until `deadline` (epoch ms); true when the inbox is gone. */
async function removeInboxBy(ctx: AppContext, inbox: InboxRecord, deadline: number): Promise<boolean> {
  if (!inbox.deleting) {
    // Past the removal grace: the sweep (and TTL) take it as due.
    await withRoomToDelete(ctx, blobKeys.inbox(inbox.id), () => ctx.stores.inboxes.markInboxDeleting(inbox, epochSeconds(ctx.now()) - REMOVAL_GRACE_SECONDS - 1));
  }
  await ctx.stores.blobs.deletePrefix(blobKeys.inbox(inbox.id));
  do {
    if ((await ctx.stores.inboxes.deleteMessages(inbox.id, DELETE_BATCH)) === 0) {
      await removeInbox(ctx, inbox);
      return true;
    }
  } while (ctx.now() < deadline);
  return false;
}

/** Inboxes of a group read at once by DELETE /v1/inboxes?group= (one page of the group's index). */
const GROUP_DELETE_PAGE = 25;

/**
 * DELETE /v1/inboxes?group=: each of the group's inboxes (live, expired or being deleted) goes as DELETE
 * /v1/inboxes/{id} removes one, in the same steps, all within one request's delete budget (`deleteBudgetMs`); when
 * the budget runs out first the answer says `finished: false` (202) and a repeat goes on (the inboxes already marked
 * are gone for their owner and their addresses free). An unknown or empty group is finished at once.
 */
export async function deleteInboxGroup(ctx: AppContext, caller: Caller, groupName: string): Promise<{ deleted_count: number; finished: boolean }> {
  const group = groupOf(groupName);
  const deadline = ctx.now() + ctx.settings.deleteBudgetMs;
  let deleted = 0;
  let started = false;
  // Page by position (newest first), not from the top each time: DynamoDB's index may list a removed inbox a moment
  // longer, and the position moves past it. An inbox created in the group meanwhile may be left: repeat for it.
  let after: InboxPosition | undefined;
  do {
    const page = await ctx.stores.inboxes.listInboxes(caller.account_id, GROUP_DELETE_PAGE, after, group);
    for (const listed of page.items) {
      // Each request takes at least one inbox a step further, so that repeats always finish.
      if (started && ctx.now() >= deadline) return { deleted_count: deleted, finished: false };
      started = true;
      const inbox = await ctx.stores.inboxes.getInbox(listed.id);
      if (!inbox || inbox.account_id !== caller.account_id) continue;
      if (!(await removeInboxBy(ctx, inbox, deadline))) return { deleted_count: deleted, finished: false };
      deleted++;
    }
    after = page.last;
  } while (after);
  return { deleted_count: deleted, finished: true };
}

/** Message items removed per step of a DELETE (DynamoDB: one Query page and four BatchWriteItem calls). */
const DELETE_BATCH = 100;

/**
 * Removes inboxes one grace period after they expired, as DynamoDB TTL and S3 lifecycle do on AWS: the local
 * stack's periodic sweep (neither the embedded store nor DynamoDB Local expires anything by itself).
 */
export async function sweepExpired(ctx: AppContext): Promise<number> {
  const cutoff = epochSeconds(ctx.now()) - REMOVAL_GRACE_SECONDS;
  const expired = await ctx.stores.inboxes.inboxesExpiredBy(cutoff);
  for (const inbox of expired) {
    // Reported before the removal, so that a removal cut short is reported again by the next sweep (same event id).
    // An inbox deleted through the API is not reported: it did not expire.
    if (!inbox.deleting) await ctx.events?.inboxExpired(inbox);
    await removeInbox(ctx, inbox);
  }
  return expired.length;
}
