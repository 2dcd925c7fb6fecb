/** The records the service keeps, independent of where they are kept. */
import type { PlanName } from './plans';

export interface ApiKeyRecord {
  key_hash: string;
  account_id: string;
  plan: PlanName;
  /** API Gateway's id for the key (AWS only). */
  api_key_id?: string;
  hint: string;
  created_at: string;
  revoked_at?: string;
}

export interface InboxRecord {
  id: string;
  email: string;
  account_id: string;
  /** The owner's plan when the inbox was made: sets the daily e-mail limit at ingest without a key lookup. */
  plan: PlanName;
  created_at: string;
  expires_at: string;
  expires_at_epoch: number;
  ttl: number;
  message_count: number;
}

/** What routing mail to an inbox needs; the address claim carries it, so a recipient costs one read. */
export type InboxRoute = Pick<InboxRecord, 'id' | 'email' | 'account_id' | 'plan' | 'expires_at_epoch'>;

export type Verdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED' | 'DISABLED';
export interface AuthVerdicts {
  spf: Verdict;
  dkim: Verdict;
  dmarc: Verdict;
  spam: Verdict;
  virus: Verdict;
}

/** Where nothing checked the mail (the local form). */
export const DISABLED_VERDICTS: AuthVerdicts = { spf: 'DISABLED', dkim: 'DISABLED', dmarc: 'DISABLED', spam: 'DISABLED', virus: 'DISABLED' };

export interface AttachmentRecord {
  id: string;
  filename: string | null;
  content_type: string;
  size: number;
  content_id: string | null;
  /** Object key in the bucket. */
  key: string;
}

export interface MessageSummary {
  id: string;
  from: string;
  from_name: string | null;
  subject: string;
  received_at: string;
  size: number;
}

export interface MessageRecord extends MessageSummary {
  inbox_id: string;
  to: string;
  /** Bodies inline when small; otherwise `body_key` names a JSON object `{text, html}` in the bucket. */
  text?: string;
  html?: string;
  body_key?: string;
  attachments: AttachmentRecord[];
  codes: string[];
  links: string[];
  auth: AuthVerdicts;
  raw_key: string;
}

export interface Caller {
  account_id: string;
  plan: PlanName;
}
