/**
 * POST …/messages/wait (issue 24): holds a request until `count` messages match the caller's conditions, or, with
 * `none`, for the whole window unless one does. It long-polls as the GET form does (usecases/messages.ts
 * waitForMessage): the inbox's messages after `after` are read every POLL_MS, a page at a time, within the
 * server's bound of MAX_WAIT_SECONDS. Each message is read in full once per request (its conditions may look at the
 * body, headers or attachments) and judged by core/wait-conditions.ts; a timeout answers 408 with the messages that
 * came closest, so that a failing test says what did arrive.
 */
import { ApiError } from '../core/errors';
import { DEFAULT_WAIT_SECONDS, LAMBDA_RESPONSE_LIMIT_BYTES, MAX_FILTER_SCAN_ITEMS } from '../core/limits';
import type { Caller } from '../core/model';
import { compileConditions } from '../core/wait-conditions';
import { WAIT_CONDITION_LIMITS, type CompiledConditions, type Condition, type FailedCondition } from '../core/wait-fields';
import type { AppContext } from './context';
import { ownedInbox } from './inboxes';
import { fullMessage } from './messages';

export interface WaitRequest {
  conditions?: Condition[];
  match?: 'all' | 'any';
  count?: number;
  exact?: boolean;
  none?: boolean;
  timeout?: number;
  after?: string;
}

type MessageView = Awaited<ReturnType<typeof fullMessage>>;

export interface NearMiss {
  id: string;
  from: string;
  subject: string;
  received_at: string;
  failed: FailedCondition[];
}

const POLL_MS = 250;
const PAGE = 100;
/** What the answer's messages may take of Lambda's response, leaving room for the envelope of the proxy result. */
const ANSWER_BUDGET_BYTES = LAMBDA_RESPONSE_LIMIT_BYTES - 64 * 1024;

interface Judged {
  id: string;
  matched: boolean;
  miss: NearMiss;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The answer's messages in full while they fit Lambda's response together; a message past the first that would not
 * fit comes without its bodies (`body_truncated`: GET …/messages/{id} has them).
 */
function withinResponse(messages: MessageView[]): MessageView[] {
  let used = 0;
  return messages.map((m, i) => {
    const bytes = Buffer.byteLength(JSON.stringify(JSON.stringify(m)));
    if (i === 0 || used + bytes <= ANSWER_BUDGET_BYTES) {
      used += bytes;
      return m;
    }
    const cut = { ...m, text: '', html: '', body_truncated: true };
    used += Buffer.byteLength(JSON.stringify(JSON.stringify(cut)));
    return cut;
  });
}

export async function waitForMessages(ctx: AppContext, caller: Caller, inboxId: string, request: WaitRequest): Promise<{ messages: MessageView[] } | null> {
  const compiled = compileConditions(request.conditions ?? [], request.match ?? 'all');
  try {
    return await holdUntilMatched(ctx, caller, inboxId, request, compiled);
  } finally {
    compiled.dispose();
  }
}

async function holdUntilMatched(ctx: AppContext, caller: Caller, inboxId: string, request: WaitRequest, compiled: CompiledConditions): Promise<{ messages: MessageView[] } | null> {
  const count = request.count ?? 1;
  const seconds = request.timeout ?? DEFAULT_WAIT_SECONDS;
  const deadline = ctx.now() + seconds * 1000;
  const judged = new Map<string, Judged>();
  let after = request.after;
  let capped = false;
  for (;;) {
    const inbox = await ownedInbox(ctx, caller, inboxId);
    for (;;) {
      const batch = await ctx.stores.inboxes.messagesSince(inbox.id, after, PAGE);
      for (const summary of batch.items) {
        if (judged.has(summary.id)) continue;
        if (judged.size >= MAX_FILTER_SCAN_ITEMS) {
          capped = true;
          break;
        }
        const record = await ctx.stores.inboxes.getMessage(inbox.id, summary.id);
        if (!record) continue; // deleted meanwhile
        const view = await fullMessage(ctx, record);
        const verdict = compiled.evaluate(view);
        judged.set(summary.id, { id: summary.id, matched: verdict.matched, miss: { id: view.id, from: view.from, subject: cutSeen(view.subject), received_at: view.received_at, failed: verdict.failed } });
      }
      if (!batch.last || capped) break;
      after = batch.last;
    }
    // Ids sort by arrival: the oldest matching messages answer.
    const matched = [...judged.values()].filter((j) => j.matched).sort((a, b) => (a.id < b.id ? -1 : 1));
    if (request.none && matched.length) {
      const first = matched[0];
      throw new ApiError(409, `expected no matching message, but ${first.id} (subject "${first.miss.subject}") matches`, {}, { message_id: first.id });
    }
    if (!request.none && matched.length >= count) {
      if (request.exact && matched.length > count) {
        throw new ApiError(409, `expected exactly ${plural(count, 'matching message')}, but ${matched.length} match: ${matched.map((m) => m.id).join(', ')}`, {}, { message_ids: matched.map((m) => m.id) });
      }
      const messages = await Promise.all(matched.slice(0, count).map(async (m) => {
        const record = await ctx.stores.inboxes.getMessage(inbox.id, m.id);
        return record ? fullMessage(ctx, record) : null;
      }));
      // A message deleted since it was judged: judge afresh on the next poll.
      if (messages.every((m) => m !== null)) return { messages: withinResponse(messages as MessageView[]) };
      for (const m of matched) judged.delete(m.id);
    }
    const left = deadline - ctx.now();
    if (left <= 0) {
      if (request.none) return null;
      throw timedOut(seconds, count, matched.length, [...judged.values()].filter((j) => !j.matched), capped);
    }
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, left)));
  }
}

const cutSeen = (value: string) => (value.length <= WAIT_CONDITION_LIMITS.seenChars ? value : `${value.slice(0, WAIT_CONDITION_LIMITS.seenChars - 1)}\u2026`);

/** 408: what was expected, what arrived, and the latest messages that did not match with the conditions each failed. */
function timedOut(seconds: number, count: number, matching: number, misses: Judged[], capped: boolean): ApiError {
  const near = misses.sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, WAIT_CONDITION_LIMITS.nearMisses).map((j) => j.miss);
  const arrived = matching + misses.length;
  const message =
    `expected ${plural(count, 'matching message')} within ${seconds} s; ` +
    (arrived === 0 ? 'none arrived' : `${plural(arrived, 'message')} arrived, ${matching} matching`) +
    (capped ? ` (only the first ${MAX_FILTER_SCAN_ITEMS} messages were read)` : '') +
    (near.length ? `; near_misses lists the latest ${near.length} that did not match` : '');
  return new ApiError(408, message, {}, { near_misses: near });
}
