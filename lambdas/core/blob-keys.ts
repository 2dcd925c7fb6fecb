/**
 * Where each object lives in the blob store (S3 on AWS, the embedded store locally), stated once for every adapter,
 * use case and test (ports.ts re-exports it).
 */
import { CHECKS_CACHE_VERSION } from './checks/model';

/** Object keys: everything of an inbox lives under one prefix, so deleting an inbox deletes one prefix. */
export const blobKeys = {
  inbox: (inboxId: string) => `inboxes/${inboxId}/`,
  message: (inboxId: string, messageId: string) => `inboxes/${inboxId}/${messageId}/`,
  raw: (inboxId: string, messageId: string) => `inboxes/${inboxId}/${messageId}/raw.eml`,
  body: (inboxId: string, messageId: string) => `inboxes/${inboxId}/${messageId}/body.json`,
  attachment: (inboxId: string, messageId: string, attachmentId: string) => `inboxes/${inboxId}/${messageId}/${attachmentId}`,
  /** The message's checks cache (usecases/checks-cache.ts), named by the version of the rules that computed it. */
  checks: (inboxId: string, messageId: string) => `inboxes/${inboxId}/${messageId}/checks-v${CHECKS_CACHE_VERSION}.json`,
  /** Where SES's S3 action (and the local SMTP stand-in) drops raw mail. */
  inbound: (sesMessageId: string) => `inbound/${sesMessageId}`,
  INBOUND_PREFIX: 'inbound/',
  /** The local inbound queue's envelopes too large for an object's metadata. */
  spool: (mailId: string) => `spool/${mailId}.json`,
  SPOOL_PREFIX: 'spool/',
  /** Every inbox's objects live under it (the first segment of `inbox`). */
  INBOXES_PREFIX: 'inboxes/',
};
