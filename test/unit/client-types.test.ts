/**
 * The client package writes the API's shapes out by hand so that it stands alone. Here the type checker proves each
 * equal to what the server's zod schemas produce (`npm run typecheck` fails otherwise); the test itself only runs
 * the proof's values.
 */
import type { z } from 'zod';
import type * as client from '../../client/src';
import type * as schemas from '../../lambdas/contract/schemas';
import type * as checkSchemas from '../../lambdas/contract/check-schemas';
import type * as checkModel from '../../lambdas/core/checks/model';
import type * as views from '../../lambdas/contract/views';
import type * as waitSchemas from '../../lambdas/contract/wait-schemas';
import type * as limits from '../../lambdas/core/limits';
import type * as inbox from '../../lambdas/core/inbox';
import type * as model from '../../lambdas/core/model';

/** true only when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const proofs: Record<string, true> = {
  InboxCreated: true satisfies Same<client.InboxCreated, z.infer<typeof schemas.InboxCreated>>,
  Inbox: true satisfies Same<client.Inbox, z.infer<typeof schemas.Inbox>>,
  InboxList: true satisfies Same<client.InboxList, z.infer<typeof schemas.InboxList>>,
  MessageSummary: true satisfies Same<client.MessageSummary, z.infer<typeof schemas.MessageSummary>>,
  MessageList: true satisfies Same<client.MessageList, z.infer<typeof schemas.MessageList>>,
  Attachment: true satisfies Same<client.Attachment, z.infer<typeof schemas.Attachment>>,
  Message: true satisfies Same<client.Message, z.infer<typeof schemas.Message>>,
  WaitResult: true satisfies Same<client.WaitResult, z.infer<typeof schemas.WaitResult>>,
  MessageSnapshot: true satisfies Same<client.MessageSnapshot, z.infer<typeof schemas.MessageSnapshot>>,
  Deleted: true satisfies Same<client.Deleted, z.infer<typeof schemas.Deleted>>,
  RawLink: true satisfies Same<client.RawLink, z.infer<typeof schemas.RawLink>>,
  InboxEmptied: true satisfies Same<client.InboxEmptied, z.infer<typeof schemas.InboxEmptied>>,
  GroupDeleted: true satisfies Same<client.GroupDeleted, z.infer<typeof schemas.GroupDeleted>>,
  Domains: true satisfies Same<client.Domains, z.infer<typeof schemas.Domains>>,
  CreateInboxInput: true satisfies Same<client.CreateInboxInput, z.input<typeof schemas.CreateInboxBody>>,
  Webhook: true satisfies Same<client.Webhook, z.infer<typeof schemas.Webhook>>,
  WebhookCreated: true satisfies Same<client.WebhookCreated, z.infer<typeof schemas.WebhookCreated>>,
  WebhookList: true satisfies Same<client.WebhookList, z.infer<typeof schemas.WebhookList>>,
  WebhookTestQueued: true satisfies Same<client.WebhookTestQueued, z.infer<typeof schemas.WebhookTestQueued>>,
  WebhookDeliveries: true satisfies Same<client.WebhookDeliveries, z.infer<typeof schemas.WebhookDeliveries>>,
  CreateWebhookInput: true satisfies Same<client.CreateWebhookInput, z.input<typeof schemas.CreateWebhookBody>>,
  Verdict: true satisfies Same<client.Verdict, model.Verdict>,
  WaitRequest: true satisfies Same<client.WaitRequest, z.input<typeof waitSchemas.WaitRequest>>,
  WaitMessages: true satisfies Same<client.WaitMessages, z.infer<typeof waitSchemas.WaitMessages>>,
  NearMiss: true satisfies Same<client.NearMiss, z.infer<typeof waitSchemas.NearMiss>>,
};

/**
 * The checks answer: each section the server gives (whatever their names and number, optional ones included) is
 * exactly the client's CheckSection, the rest of the answer is the same, and so every answer the server can give is
 * a client MessageChecks, whose sections are a record by name (the client needs no change when a section is added).
 */
type ServerChecks = z.infer<typeof checkSchemas.MessageChecks>;
type ServerSection = NonNullable<ServerChecks['sections'][keyof ServerChecks['sections']]>;
const checksProofs: Record<string, true> = {
  CheckResult: true satisfies Same<client.CheckResult, checkModel.CheckResult>,
  CheckSection: true satisfies Same<client.CheckSection, ServerSection>,
  MessageChecksFields: true satisfies Same<Omit<client.MessageChecks, 'sections'>, Omit<ServerChecks, 'sections'>>,
  MessageChecks: true satisfies (ServerChecks extends client.MessageChecks ? true : false),
};

/**
 * The summary's keys, each side's own list: the client's MessageSummary has exactly the server's one summary-field
 * list (core/model.ts MESSAGE_SUMMARY_FIELDS), so a field added to one and not the other fails the type check (the
 * schema proof above compares the client with the zod schema, itself keyed by the same list).
 */
const summaryKeyProofs: Record<string, true> = {
  clientKeys: true satisfies Same<keyof client.MessageSummary, model.MessageSummaryField>,
  schemaKeys: true satisfies Same<keyof z.infer<typeof schemas.MessageSummary>, model.MessageSummaryField>,
  view: true satisfies Same<ReturnType<typeof views.summaryView>, z.infer<typeof schemas.MessageSummary>>,
};

/** The limits the client states, each the server's own value (their types are the literal numbers). */
const limitProofs: Record<string, true> = {
  MAX_WAIT_SECONDS_PER_REQUEST: true satisfies Same<typeof client.MAX_WAIT_SECONDS_PER_REQUEST, typeof limits.MAX_WAIT_SECONDS>,
  DEFAULT_WAIT_SECONDS: true satisfies Same<typeof client.DEFAULT_WAIT_SECONDS, typeof limits.DEFAULT_WAIT_SECONDS>,
  DEFAULT_TTL_SECONDS: true satisfies Same<typeof client.DEFAULT_TTL_SECONDS, typeof inbox.DEFAULT_TTL_SECONDS>,
  MIN_TTL_SECONDS: true satisfies Same<typeof client.MIN_TTL_SECONDS, typeof inbox.MIN_TTL_SECONDS>,
};

it('client types equal the server schemas', () => {
  expect(Object.values(proofs).every(Boolean)).toBe(true);
});

it('the client\'s checks types take every answer the server gives', () => {
  expect(Object.values(checksProofs).every(Boolean)).toBe(true);
});

it("the client's summary keys are the server's one list", () => {
  expect(Object.values(summaryKeyProofs).every(Boolean)).toBe(true);
});

it("client limits equal the server's", () => {
  expect(Object.values(limitProofs).every(Boolean)).toBe(true);
});
