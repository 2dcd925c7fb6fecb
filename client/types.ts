/**
 * The API's shapes as a client sees them, inferred from the zod schemas the handlers validate with
 * (lambdas/core/schemas.ts). Type-only imports: nothing of zod or the server reaches the client's bundle.
 */
import type { z } from 'zod';
import type * as schemas from '../lambdas/core/schemas';

export type InboxCreated = z.infer<typeof schemas.InboxCreated>;
export type Inbox = z.infer<typeof schemas.Inbox>;
export type InboxList = z.infer<typeof schemas.InboxList>;
export type MessageSummary = z.infer<typeof schemas.MessageSummary>;
export type MessageList = z.infer<typeof schemas.MessageList>;
export type Attachment = z.infer<typeof schemas.Attachment>;
export type Message = z.infer<typeof schemas.Message>;
export type Verdict = Message['auth']['spf'];
export type WaitResult = z.infer<typeof schemas.WaitResult>;
export type Deleted = z.infer<typeof schemas.Deleted>;
