/** Fixed bounds of the API (plan-dependent limits live in plans.ts). */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 100;
/** API Gateway's integration timeout (REST API default). */
export const API_GATEWAY_TIMEOUT_SECONDS = 29;
/** The longest a route's function may run: under API Gateway's timeout, so the handler's own 503 reaches the client. */
export const MAX_ROUTE_TIMEOUT_SECONDS = 27;
/** The wait endpoint holds a request at most this long, inside the route's function timeout. */
export const MAX_WAIT_SECONDS = 25;
/** Lambda's limit on a synchronous invocation's response (the serialized proxy result): 6 MB as Lambda counts it. */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6_291_556;
export const DEFAULT_WAIT_SECONDS = 20;
/** Largest request body accepted (413 beyond). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Largest message accepted, as SES. */
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
/** Recipients per SMTP transaction. */
export const MAX_RECIPIENTS = 100;
/**
 * A message's detail (bodies, lists, headers) stays in its item while it serializes to at most this many bytes;
 * otherwise it goes to the message's body object in the bucket. With the capped summary fields below an item stays
 * under about 110 KB, whatever the mail holds (DynamoDB items stop at 400 KB).
 */
export const INLINE_DETAIL_BYTES = 100 * 1024;

/**
 * What a message.received event lists of a message's codes and links (the full message has them all). An item
 * whose detail went to its body object keeps this much of them, within `bytes`, so that the event (built from the
 * item: locally at ingest, on AWS from the table's stream) carries them too.
 */
export const EVENT_PREVIEW = { listed: 50, bytes: 8 * 1024 } as const;

/**
 * What a stored message keeps of a mail at most; the raw mail (GET …/raw) always keeps everything. Summary fields
 * are cut in lists and items; the message itself has the whole subject and from name (from its body object).
 */
export const MESSAGE_CAPS = {
  /** Subject in lists (and wait matching); the message has it whole. */
  summarySubjectChars: 1_000,
  /** From name in lists; the message has it whole. */
  summaryFromNameChars: 200,
  /** An e-mail address longer than RFC 5321's 320 characters is cut. */
  addressChars: 320,
  /** Links listed (`links_truncated` says more were found). */
  links: 1_000,
  /** Longest link kept; longer ones are left out. */
  linkChars: 2_000,
  /** Attachments stored and listed, in MIME order (`attachment_count` is the mail's number). */
  attachments: 100,
  /** An attachment's file name is cut to this many characters, its extension kept. */
  filenameChars: 255,
  /** Headers listed, in order (`headers_truncated` says more were there, or a value was cut). */
  headers: 500,
  /** Characters of one header value in `headers` (the subject field has the subject whole). */
  headerValueChars: 2_000,
  /** Addresses in `cc` and `reply_to`. */
  addresses: 100,
} as const;
/**
 * A full message's share of each part of its response, in bytes as Lambda counts them: the message's JSON travels
 * as a string inside the proxy result's JSON, escaped twice (a quote costs 4 bytes, a control character 7). Each
 * part is cut to its share, so that a message stays under LAMBDA_RESPONSE_LIMIT_BYTES (about 6.1 MB in all, with
 * the fields that have no share) whatever the mail holds: a 1 MB subject of control characters once made its
 * message a 502 for good. Lists keep their first items that fit; the raw download always has everything.
 */
export const MESSAGE_RESPONSE_SHARES = {
  /** The text, and the HTML, each (`body_truncated` says one was cut). */
  body: 2_000_000,
  /** The whole subject: a 450 KB one fits, a megabyte of control characters is cut. */
  subject: 1_000_000,
  /** The header fields (`headers_truncated`). */
  headers: 300_000,
  /** The attachments listed (`attachments_truncated`): 100 of them with the longest names fit unless their names are control characters. */
  attachments: 250_000,
  /** The links (`links_truncated`). */
  links: 200_000,
  /** The links again with their text and source (`verification.links_truncated`); the codes are short and few. */
  verification: 200_000,
  /** The Cc addresses, and the Reply-To addresses, each. */
  addresses: 50_000,
  fromName: 10_000,
  /** Message-ID, In-Reply-To and parse_error, each. */
  other: 10_000,
} as const;

/**
 * A filtered message list on DynamoDB reads at most this many of the inbox's items per request (newest first) and
 * tests them in the function; when it stops early, the page carries a cursor to go on from there. Inboxes are
 * small (a test's mail), so one request nearly always covers the whole inbox.
 */
export const MAX_FILTER_SCAN_ITEMS = 1_000;
/**
 * The embedded store's search also stops after this much text (subject, sender and body, in characters) per request:
 * its scan runs on the one event loop that serves every request.
 */
export const MAX_FILTER_SCAN_BYTES = 4 * 1024 * 1024;

/**
 * The most a mail of `rawBytes` can take of its account's storage quota (plan `storage_bytes`): its raw copy and its
 * attachments, which decode to no more than the raw mail holds. The SMTP stand-in reserves this at the end of DATA,
 * before the 250, so that a mail accepted is never refused by the quota when it is stored.
 */
export const storedBytesBound = (rawBytes: number): number => 2 * rawBytes;
