/**
 * An inbox's lifetime as its DynamoDB items carry it (DESIGN §4): the inbox item and its address claim hold the
 * expiry and the TTL attribute at its removal time, and conditions read that expiry. Stated once here for the
 * inbox store's claim, its message writes and its sweep.
 */
import { removalEpoch } from '../core/inbox';
import { EXPIRY_ATTRIBUTE, TTL_ATTRIBUTE } from '../layout/table-layout';

/** The expression names of both lifetime attributes, for an update that moves them. */
export const lifetimeNames = { '#expiry': EXPIRY_ATTRIBUTE, '#ttl': TTL_ATTRIBUTE };

/** The lifetime attributes of an item whose inbox expires at `expiresAtEpoch`. */
export const lifetimeAttributes = (expiresAtEpoch: number) => ({ [EXPIRY_ATTRIBUTE]: expiresAtEpoch, [TTL_ATTRIBUTE]: removalEpoch(expiresAtEpoch) });

/**
 * A condition on that expiry (`value` names an expression value), for items of both kinds: items written before
 * they carried EXPIRY_ATTRIBUTE are read by their TTL attribute.
 */
export const expiryIs = (op: '>' | '<=', value: string) =>
  `(${EXPIRY_ATTRIBUTE} ${op} ${value} OR (attribute_not_exists(${EXPIRY_ATTRIBUTE}) AND ${TTL_ATTRIBUTE} ${op} ${value}))`;
