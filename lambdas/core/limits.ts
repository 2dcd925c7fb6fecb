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
/** Bodies larger than this go to the bucket instead of the message item (DynamoDB items stop at 400 KB). */
export const INLINE_BODY_BYTES = 100 * 1024;
