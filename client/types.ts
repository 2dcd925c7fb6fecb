/** The API's shapes as a client sees them (snake_case, as on the wire). Kept in step with lambdas/core/schemas.ts. */
export interface InboxCreated {
  id: string;
  email: string;
  created_at: string;
  expires_at: string;
  ttl: number;
}

export interface Inbox {
  id: string;
  email: string;
  created_at: string;
  expires_at: string;
  message_count: number;
  status: 'active';
}

export interface MessageSummary {
  id: string;
  from: string;
  from_name: string | null;
  subject: string;
  received_at: string;
  size: number;
}

export interface MessageList {
  messages: MessageSummary[];
  total: number;
  next_cursor?: string;
}

export interface Attachment {
  id: string;
  filename: string | null;
  content_type: string;
  size: number;
  content_id: string | null;
  download_url: string;
}

export type Verdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED' | 'DISABLED';

export interface Message extends MessageSummary {
  to: string;
  text: string;
  html: string;
  attachments: Attachment[];
  codes: string[];
  links: string[];
  auth: { spf: Verdict; dkim: Verdict; dmarc: Verdict; spam: Verdict; virus: Verdict };
}

export interface WaitResult {
  message: Message | null;
  timed_out: boolean;
}

export interface Deleted {
  deleted: true;
}
