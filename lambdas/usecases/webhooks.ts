/**
 * Webhook use cases, the same in both forms:
 * - the API: create (the secret is returned here once, stored sealed), list, get, delete, test, deliveries;
 * - dispatch: an event (a stored message, an expired inbox) → one job per webhook that covers it, queued;
 * - deliver: one attempt of one job → a delivery record, then done, a retry later, or the webhook disabled.
 * Locally the stack's dispatcher feeds them from ingest and the sweep and runs the queue; on AWS the table's stream
 * feeds dispatch (lambdas/webhooks/dispatcher.ts) and SQS runs deliver (lambdas/webhooks/sender.ts).
 */
import { badRequest, forbidden, notFound } from '../core/errors';
import { INBOX_ID } from '../core/ids';
import { DEFAULT_PAGE_SIZE } from '../core/limits';
import type { Caller, InboxRecord, MessageRecord } from '../core/model';
import { deliveryView, webhookView } from '../contract/webhook-views';
import { decodeWebhookCursor, encodeWebhookCursor } from '../core/cursor';
import { checkWebhookUrl } from '../core/webhook-destinations';
import { inboxExpiredPayload, messageReceivedPayload, testPayload } from '../core/webhook-payloads';
import { afterAttempt, DELIVERY_RECORD_SECONDS, MAX_DELIVERIES_LISTED } from '../core/webhook-retries';
import { newWebhookSecret, signedHeaders } from '../core/webhook-signing';
import { covers, eventIdFor, newEventId, newWebhookId, WEBHOOK_EVENTS, WEBHOOK_ID, type DeliveryJob, type DeliveryRecord, type WebhookEventType, type WebhookRecord } from '../core/webhooks';
import type { AppContext } from './context';
import { ownedInbox } from './inboxes';

export interface CreateWebhookInput {
  url: string;
  inbox_id?: string;
  events?: WebhookEventType[];
  description?: string;
}

/** What a sealed secret is bound to: it opens for this webhook of this account only. */
const sealContext = (hook: Pick<WebhookRecord, 'id' | 'account_id'>) => ({ webhook_id: hook.id, account_id: hook.account_id });

export async function createWebhook(ctx: AppContext, caller: Caller, input: CreateWebhookInput) {
  const plan = ctx.settings.plans[caller.plan];
  if (plan.max_webhooks <= 0) throw forbidden(`the ${caller.plan} plan has no webhooks`);
  const url = checkWebhookUrl(input.url, ctx.settings.webhooks.allowPrivate);
  const refused = await ctx.webhooks.sender.vet(url);
  if (refused) throw badRequest(`url refused: ${refused}`);
  if (input.inbox_id !== undefined) await ownedInbox(ctx, caller, input.inbox_id);
  const events = WEBHOOK_EVENTS.filter((e) => (input.events ?? WEBHOOK_EVENTS).includes(e));
  const id = newWebhookId();
  const secret = newWebhookSecret();
  const hook: WebhookRecord = {
    id,
    account_id: caller.account_id,
    url: url.toString(),
    inbox_id: input.inbox_id ?? null,
    events,
    description: input.description ?? null,
    secret_sealed: await ctx.webhooks.secrets.seal(secret, sealContext({ id, account_id: caller.account_id })),
    created_at: new Date(ctx.now()).toISOString(),
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
  };
  if (!(await ctx.stores.webhooks.putWebhook(hook, plan.max_webhooks))) {
    throw forbidden(`the ${caller.plan} plan allows at most ${plan.max_webhooks} webhooks; delete one first`);
  }
  return { ...webhookView(hook), secret };
}

/** The caller's webhook, or 404: another account's webhook is "not found", as for inboxes. */
export async function ownedWebhook(ctx: AppContext, caller: Caller, webhookId: string): Promise<WebhookRecord> {
  const hook = WEBHOOK_ID.test(webhookId) ? await ctx.stores.webhooks.getWebhook(caller.account_id, webhookId) : null;
  if (!hook) throw notFound(`webhook not found: ${webhookId}`);
  return hook;
}

export async function getWebhook(ctx: AppContext, caller: Caller, webhookId: string) {
  return webhookView(await ownedWebhook(ctx, caller, webhookId));
}

export async function listWebhooks(ctx: AppContext, caller: Caller, query: { limit?: number; cursor?: string }) {
  const after = query.cursor === undefined ? undefined : decodeWebhookCursor(query.cursor);
  const page = await ctx.stores.webhooks.listWebhooks(caller.account_id, query.limit ?? DEFAULT_PAGE_SIZE, after);
  return { webhooks: page.items.map(webhookView), ...(page.last ? { next_cursor: encodeWebhookCursor(page.last) } : {}) };
}

export async function deleteWebhook(ctx: AppContext, caller: Caller, webhookId: string): Promise<void> {
  await ownedWebhook(ctx, caller, webhookId);
  if (!(await ctx.stores.webhooks.deleteWebhook(caller.account_id, webhookId))) throw notFound(`webhook not found: ${webhookId}`);
}

/** Queues a `webhook.test` event now (also to a disabled webhook: that is how a fixed endpoint is checked). */
export async function testWebhook(ctx: AppContext, caller: Caller, webhookId: string) {
  const hook = await ownedWebhook(ctx, caller, webhookId);
  const now = ctx.now();
  const job: DeliveryJob = {
    webhook_id: hook.id,
    account_id: hook.account_id,
    event_id: newEventId(),
    event_type: 'webhook.test',
    payload: testPayload(hook.id, now),
    attempt: 1,
    due_at_ms: now,
  };
  await ctx.webhooks.queue.enqueue([job]);
  return { event_id: job.event_id, queued: true as const };
}

export async function listDeliveries(ctx: AppContext, caller: Caller, webhookId: string) {
  const hook = await ownedWebhook(ctx, caller, webhookId);
  const records = await ctx.stores.webhooks.listDeliveries(hook.id, MAX_DELIVERIES_LISTED, ctx.now());
  return { deliveries: records.map(deliveryView) };
}

// --- dispatch ------------------------------------------------------------------------------------------------

async function dispatch(ctx: AppContext, accountId: string, type: WebhookEventType, inboxId: string, subjectId: string, payload: (nowMs: number) => string): Promise<number> {
  const hooks = (await ctx.stores.webhooks.accountWebhooks(accountId)).filter((h) => covers(h, type, inboxId));
  if (hooks.length === 0) return 0;
  const now = ctx.now();
  const body = payload(now);
  await ctx.webhooks.queue.enqueue(
    hooks.map((hook) => ({
      webhook_id: hook.id,
      account_id: accountId,
      event_id: eventIdFor(hook.id, type, subjectId),
      event_type: type,
      payload: body,
      attempt: 1,
      due_at_ms: now,
    })),
  );
  return hooks.length;
}

/**
 * A stored message → `message.received` for each webhook that covers its inbox. `accountId` is known to ingest;
 * the stream's message item does not carry it, so then the inbox is read (a removed inbox gets no event).
 */
export async function dispatchMessageReceived(ctx: AppContext, message: MessageRecord, accountId?: string): Promise<number> {
  let account = accountId;
  if (!account) {
    const inbox = INBOX_ID.test(message.inbox_id) ? await ctx.stores.inboxes.getInbox(message.inbox_id) : null;
    if (!inbox) return 0;
    account = inbox.account_id;
  }
  return dispatch(ctx, account, 'message.received', message.inbox_id, message.id, (now) => messageReceivedPayload(message, ctx.settings.webhooks.apiUrl, now));
}

/** An expired inbox, when it is removed (the local sweep; DynamoDB's TTL deletion on AWS) → `inbox.expired`. */
export async function dispatchInboxExpired(ctx: AppContext, inbox: InboxRecord): Promise<number> {
  return dispatch(ctx, inbox.account_id, 'inbox.expired', inbox.id, inbox.id, (now) => inboxExpiredPayload(inbox, now));
}

// --- deliver -------------------------------------------------------------------------------------------------

export type DeliveryOutcome = DeliveryRecord['outcome'] | 'dropped';

/** Jobs due at `nowMs`, earliest first, at most `limit`: what a dispatcher that pulls its own queue runs next. */
export function dueDeliveries(ctx: AppContext, nowMs: number, limit: number): Promise<DeliveryJob[]> {
  return ctx.stores.webhooks.dueJobs(nowMs, limit);
}

/**
 * One attempt of a job. Its record is written before the queue moves on, so a crash in between repeats the attempt
 * (at least once; the `webhook-id` lets the receiver drop the repeat) and never loses it.
 */
export async function deliverJob(ctx: AppContext, job: DeliveryJob): Promise<DeliveryOutcome> {
  const { webhooks: store } = ctx.stores;
  const { queue, secrets, sender } = ctx.webhooks;
  const hook = await store.getWebhook(job.account_id, job.webhook_id);
  if (!hook || (hook.status === 'disabled' && job.event_type !== 'webhook.test')) {
    await queue.done(job);
    return 'dropped';
  }
  const secret = await secrets.open(hook.secret_sealed, sealContext(hook));
  const attemptedAt = ctx.now();
  const result = await sender.post(hook.url, signedHeaders(secret, job, attemptedAt), job.payload);
  const decision = afterAttempt(result, job.attempt, ctx.settings.webhooks.retryScheduleSeconds);
  const nextDue = decision.kind === 'retry' ? ctx.now() + decision.afterSeconds * 1000 : null;
  const outcome: DeliveryRecord['outcome'] =
    decision.kind === 'delivered' ? 'delivered' : decision.kind === 'retry' ? 'retrying' : 'status' in result && result.status === 410 ? 'disabled' : 'failed';
  await store.putDelivery(
    {
      webhook_id: hook.id,
      event_id: job.event_id,
      event_type: job.event_type,
      attempt: job.attempt,
      attempted_at: new Date(attemptedAt).toISOString(),
      status: 'status' in result ? result.status : null,
      error: 'error' in result ? result.error : null,
      duration_ms: Math.round(result.durationMs),
      response_excerpt: 'status' in result ? result.excerpt : null,
      outcome,
      next_retry_at: nextDue === null ? null : new Date(nextDue).toISOString(),
    },
    DELIVERY_RECORD_SECONDS,
  );
  if (decision.kind === 'retry') {
    await queue.retry({ ...job, attempt: job.attempt + 1, due_at_ms: nextDue! });
  } else {
    if (decision.kind === 'disable') {
      await store.disableWebhook(hook.account_id, hook.id, decision.reason, new Date(ctx.now()).toISOString());
      if (outcome === 'failed') await queue.deadLetter(job);
    }
    await queue.done(job);
  }
  return outcome;
}
