/**
 * Identifiers: `inbox_` / `msg_` plus at least 80 random bits in a URL-safe alphabet (Crockford base32, lower-case).
 * Message ids are ULIDs, so they sort by arrival time; ingest derives the random part from SES's message id and
 * the inbox so that processing one event twice yields the same id.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeTime, encodeTime, ulid } from 'ulid';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** Crockford base32 (lower-case) of `bytes`, cut to `length` characters. */
export function base32(bytes: Uint8Array, length: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/**
 * 20 base32 characters: 2 for the millisecond within the creation second (0-999, 10 bits), then 18 random (90 bits).
 * An inbox's created_at has whole seconds, and lists order inboxes by created_at then id, both descending (sqlite:
 * ORDER BY; DynamoDB: the account index's sort key, then the table key): the millisecond makes inboxes created within
 * one second list newest first too, where a random id ordered them by chance.
 */
export const newInboxId = (atMs: number = Date.now()): string => {
  const ms = ((atMs % 1000) + 1000) % 1000;
  return `inbox_${CROCKFORD[ms >> 5]}${CROCKFORD[ms & 31]}${base32(randomBytes(12), 18)}`;
};

export const newMessageId = (atMs: number = Date.now()): string => `msg_${ulid(atMs).toLowerCase()}`;

/** Deterministic for (seed, atMs): 48 bits of time then 80 bits of SHA-256(seed). */
export function messageIdFrom(seed: string, atMs: number): string {
  const time = encodeTime(atMs, 10).toLowerCase();
  return `msg_${time}${base32(createHash('sha256').update(seed).digest(), 16)}`;
}

export const INBOX_ID = /^inbox_[0-9a-hjkmnp-tv-z]{20}$/;
export const MESSAGE_ID = /^msg_[0-9a-hjkmnp-tv-z]{26}$/;
export const ATTACHMENT_ID = /^att_[0-9a-z]{1,8}$/;

export const messageTimeMs = (messageId: string): number => decodeTime(messageId.slice(4).toUpperCase());

const USERNAME_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** 10 lower-case letters and digits (about 51 bits): a random username. */
export function randomUsername(): string {
  const bytes = randomBytes(10);
  let out = '';
  for (const b of bytes) out += USERNAME_ALPHABET[b % USERNAME_ALPHABET.length];
  return out;
}

/** API keys: `tm_` + 40 base32 characters (200 bits). Only their SHA-256 is stored. */
export const newApiKey = (): string => `tm_${base32(randomBytes(25), 40)}`;
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');
/** What listings show of a key: enough to recognise it, useless to an attacker. */
export const keyHint = (key: string): string => `${key.slice(0, 7)}…${key.slice(-4)}`;
