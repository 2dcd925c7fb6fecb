/** Fixed bounds of the API (plan-dependent limits live in plans.ts). */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 100;
/** The wait endpoint holds a request at most this long, so it fits inside API Gateway's 29 s. */
export const MAX_WAIT_SECONDS = 25;
export const DEFAULT_WAIT_SECONDS = 20;
/** Largest request body accepted (413 beyond). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Largest message accepted, as SES. */
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
/** Recipients per SMTP transaction. */
export const MAX_RECIPIENTS = 100;
/** Bodies larger than this go to the bucket instead of the message item (DynamoDB items stop at 400 KB). */
export const INLINE_BODY_BYTES = 100 * 1024;
/**
 * A filtered message list on DynamoDB reads at most this many of the inbox's items per request (newest first) and
 * tests them in the function; when it stops early, the page carries a cursor to go on from there. Inboxes are
 * small (a test's mail), so one request nearly always covers the whole inbox.
 */
export const MAX_FILTER_SCAN_ITEMS = 1_000;
