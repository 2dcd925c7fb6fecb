/**
 * The shapes of POST …/messages/wait (issue 24): the conditions a test author waits for and the answers (the
 * messages, or an error that says what arrived instead). Beside schemas.ts, which keeps the GET form's.
 */
import * as z from 'zod/mini';
import { MESSAGE_ID } from '../core/ids';
import { DEFAULT_WAIT_SECONDS, MAX_FILTER_SCAN_ITEMS, MAX_WAIT_SECONDS } from '../core/limits';
import { CONDITION_FIELDS, CONDITION_OPS, HEADER_FIELD_PREFIX, isConditionField, WAIT_CONDITION_LIMITS as LIMITS } from '../core/wait-fields';
import { described, Message, named } from './schemas';

const FIELD_RULE = `field must be one of ${CONDITION_FIELDS.join(', ')} or ${HEADER_FIELD_PREFIX}<Name>`;

export const WaitCondition = named(
  z.strictObject({
    field: described(
      z.string({ error: FIELD_RULE }).check(z.refine(isConditionField, { error: FIELD_RULE })),
      'subject; from (the address, or "name <address>"); to (a To header, the envelope recipient with its +tag, or the inbox address); text; html; ' +
        `${HEADER_FIELD_PREFIX}<Name> (any header field of that name, any case); attachment_name. A field with several values matches when one does`,
    ),
    op: described(
      z.enum(CONDITION_OPS, { error: `op must be one of ${CONDITION_OPS.join(', ')}` }),
      'contains and equals ignore case; regex is RE2 syntax (linear time: no look-around or back-references), case-sensitive unless the pattern starts with (?i), and matches anywhere unless anchored',
    ),
    value: z.string({ error: 'value must be a string' }).check(z.maxLength(LIMITS.valueChars, { error: `value must be at most ${LIMITS.valueChars} characters` })),
  }),
  'WaitCondition',
);

export const WaitRequest = named(
  z
    .strictObject({
      conditions: z.optional(
        described(
          z.array(WaitCondition, { error: 'conditions must be a list' }).check(z.maxLength(LIMITS.conditions, { error: `at most ${LIMITS.conditions} conditions` })),
          'none or an empty list: every message matches',
        ),
      ),
      match: z.optional(described(z.enum(['all', 'any'], { error: 'match must be all or any' }), 'all (default): every condition holds; any: at least one does')),
      count: z.optional(
        described(
          z.int({ error: `count must be an integer from 1 to ${LIMITS.count}` }).check(z.gte(1, { error: `count must be an integer from 1 to ${LIMITS.count}` }), z.lte(LIMITS.count, { error: `count must be an integer from 1 to ${LIMITS.count}` })),
          'how many matching messages to wait for (default 1); the oldest of them answer',
        ),
      ),
      exact: z.optional(described(z.boolean({ error: 'exact must be true or false' }), 'when count are reached, more than count matching is 409 naming them all')),
      none: z.optional(
        described(z.boolean({ error: 'none must be true or false' }), 'a negative wait: 204 when no message matched for the whole timeout, 409 naming the first that did (at once)'),
      ),
      timeout: z.optional(
        described(
          z.int({ error: `timeout must be an integer from 1 to ${MAX_WAIT_SECONDS}` }).check(z.gte(1, { error: `timeout must be an integer from 1 to ${MAX_WAIT_SECONDS}` }), z.lte(MAX_WAIT_SECONDS, { error: `timeout must be an integer from 1 to ${MAX_WAIT_SECONDS}` })),
          `seconds to hold the request, default ${DEFAULT_WAIT_SECONDS}; the typed client repeats the request for longer waits`,
        ),
      ),
      after: z.optional(
        described(
          z.string({ error: 'after must be a message id' }).check(z.regex(MESSAGE_ID, { error: 'after must be a message id (msg_…) as this API returns them' })),
          `only messages that arrived after this message id; without it every message in the inbox counts. A wait reads at most ${MAX_FILTER_SCAN_ITEMS} messages`,
        ),
      ),
    })
    .check(z.refine((body) => !(body.none && (body.count !== undefined || body.exact !== undefined)), { error: 'none cannot be combined with count or exact' })),
  'WaitRequest',
);

export const WaitMessages = named(
  z.object({
    messages: described(
      z.array(Message),
      `the oldest count matching messages, each as GET …/messages/{id} gives it (a message past the first whose bodies would take the answer over Lambda's 6 MB comes without them, body_truncated true)`,
    ),
  }),
  'WaitMessages',
);

const failedCondition = z.object({
  field: z.string(),
  op: z.enum(CONDITION_OPS),
  value: z.string(),
  seen: described(z.nullable(z.string()), `the field's (first) value in the message, cut to ${LIMITS.seenChars} characters; null when the message has none (no such header, no attachment)`),
});

export const NearMiss = named(
  z.object({ id: z.string(), from: z.string(), subject: z.string(), received_at: z.iso.datetime(), failed: described(z.array(failedCondition), 'the conditions this message failed') }),
  'NearMiss',
);

export const WaitTimedOut = named(
  z.object({
    error: z.object({
      code: z.literal(408),
      message: described(z.string(), 'what was expected and what arrived, e.g. "expected 1 matching message within 5 s; 2 messages arrived, 0 matching"'),
      near_misses: described(z.array(NearMiss), `the latest ${LIMITS.nearMisses} messages the wait read that did not match, newest first`),
    }),
  }),
  'WaitTimedOut',
);

export const WaitConflict = named(
  z.object({
    error: z.object({
      code: z.literal(409),
      message: z.string(),
      message_id: z.optional(described(z.string(), 'none: the first message that matched')),
      message_ids: z.optional(described(z.array(z.string()), 'exact: every matching message')),
    }),
  }),
  'WaitConflict',
);
