/** Inbox lifetime rules (DESIGN §3): ttl bounds per plan, expiry, and when expired data is removed. */
import { badRequest, forbidden } from './errors';
import type { Plan } from './plans';

export const DEFAULT_TTL_SECONDS = 3600;
export const MIN_TTL_SECONDS = 60;
/** An expired inbox answers "inbox expired" for at least this long before it is removed. */
export const REMOVAL_GRACE_SECONDS = 3600;

export function resolveTtl(ttl: number | undefined, plan: Plan): number {
  const value = ttl ?? DEFAULT_TTL_SECONDS;
  if (!Number.isInteger(value)) throw badRequest('ttl must be an integer number of seconds');
  if (value < MIN_TTL_SECONDS) throw badRequest(`ttl must be at least ${MIN_TTL_SECONDS} seconds`);
  if (value > plan.max_ttl_seconds)
    throw forbidden(`ttl ${value} exceeds the ${plan.name} plan's maximum of ${plan.max_ttl_seconds} seconds`);
  return value;
}

export interface Lifetime {
  created_at: string;
  expires_at: string;
  /** Seconds since the epoch: the expiry as stores compare it (the claim's freedom test, ingest's condition). */
  expires_at_epoch: number;
}

export function lifetime(nowMs: number, ttlSeconds: number): Lifetime {
  // Whole seconds, so that expires_at - created_at is exactly ttl in the ISO strings.
  const created = Math.floor(nowMs / 1000) * 1000;
  const expires = created + ttlSeconds * 1000;
  return {
    created_at: new Date(created).toISOString(),
    expires_at: new Date(expires).toISOString(),
    expires_at_epoch: expires / 1000,
  };
}

export const isExpired = (expiresAtEpoch: number, nowMs: number = Date.now()): boolean => nowMs >= expiresAtEpoch * 1000;

/** A clock reading (epoch ms) in the unit stores compare expiries in: whole epoch seconds. */
export const epochSeconds = (nowMs: number): number => Math.floor(nowMs / 1000);

/**
 * The one rule for an address: it is free when no inbox claims it, or when the inbox claiming it has expired by
 * `nowEpoch` (the use case's clock, epoch seconds); until then that inbox is live and takes its mail. A store
 * applies it atomically with its write: the embedded store calls these, the DynamoDB store states the same as its
 * conditions (the claim's expiry <= now; the inbox's expiry > now).
 */
export const claimIsFree = (claim: { expires_at_epoch: number } | null | undefined, nowEpoch: number): boolean =>
  !claim || isExpired(claim.expires_at_epoch, nowEpoch * 1000);
/** The same rule seen from the inbox: live, so taking mail, until it has expired by `nowEpoch`. */
export const isLiveAt = (expiresAtEpoch: number, nowEpoch: number): boolean => !isExpired(expiresAtEpoch, nowEpoch * 1000);

/**
 * When an inbox's data may be removed (epoch seconds): the removal grace after its expiry. DynamoDB's TTL attribute
 * holds it on AWS, so TTL (which never deletes before its time) keeps the grace; the local sweep uses it too.
 */
export const removalEpoch = (expiresAtEpoch: number): number => expiresAtEpoch + REMOVAL_GRACE_SECONDS;

export const isRemovable = (expiresAtEpoch: number, nowMs: number = Date.now()): boolean => nowMs >= removalEpoch(expiresAtEpoch) * 1000;

/** The UTC day an e-mail counts against (`YYYY-MM-DD`). */
export const utcDay = (nowMs: number = Date.now()): string => new Date(nowMs).toISOString().slice(0, 10);

/** How far the receiving clock (SES's; locally this process's) may be behind the one that stamped the inbox. */
export const RECEIPT_CLOCK_SKEW_MS = 5_000;

/**
 * Whether a mail was received before the inbox now holding its address existed: it was meant for an inbox deleted
 * since (ingest runs after the 250, sometimes much later: a retry, the dead-letter queue, a restart), whose address
 * another account has claimed again. Such mail is not delivered to the newcomer. Claims older than `created_at`
 * cannot tell, and deliver.
 */
export const receivedBeforeInbox = (inbox: { created_at?: string }, receivedAtMs: number): boolean =>
  inbox.created_at !== undefined && Date.parse(inbox.created_at) > receivedAtMs + RECEIPT_CLOCK_SKEW_MS;
