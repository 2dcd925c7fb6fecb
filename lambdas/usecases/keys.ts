/** API key use cases: issue, list, revoke, and authorize a request's key. Keys are stored as SHA-256 only. */
import { randomUUID } from 'node:crypto';
import { forbidden, unauthorized } from '../core/errors';
import { hashApiKey, keyHint, newApiKey } from '../core/ids';
import type { ApiKeyRecord, Caller } from '../core/model';
import type { PlanName } from '../core/plans';
import type { Settings } from '../config/app-config';
import type { Stores } from '../core/ports';

/** What the key use cases need: the key store alone, so the CLI can run them against a deployed stack's table. */
export interface KeyContext {
  stores: Pick<Stores, 'keys'>;
  now: () => number;
}

export interface IssuedKey {
  key: string;
  record: ApiKeyRecord;
}

/** A new key is its own account unless an account id is given. `key` lets seeded keys keep a known value. */
export async function issueKey(
  ctx: KeyContext,
  plan: PlanName,
  options: { key?: string; accountId?: string; apiKeyId?: string; nowMs?: number } = {},
): Promise<IssuedKey> {
  const key = options.key ?? newApiKey();
  const record: ApiKeyRecord = {
    key_hash: hashApiKey(key),
    account_id: options.accountId ?? `acct_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    plan,
    hint: keyHint(key),
    created_at: new Date(options.nowMs ?? ctx.now()).toISOString(),
    ...(options.apiKeyId ? { api_key_id: options.apiKeyId } : {}),
  };
  await ctx.stores.keys.putKey(record);
  return { key, record };
}

/** The key named by its value or by its hash (the listing shows hashes, never values). */
export async function findKey(ctx: Pick<KeyContext, 'stores'>, keyOrHash: string): Promise<ApiKeyRecord | null> {
  const hash = /^[0-9a-f]{64}$/.test(keyOrHash) ? keyOrHash : hashApiKey(keyOrHash);
  return ctx.stores.keys.getKey(hash);
}

export async function revokeKey(ctx: KeyContext, keyOrHash: string): Promise<ApiKeyRecord | null> {
  const found = await findKey(ctx, keyOrHash);
  return found ? ctx.stores.keys.revokeKey(found.key_hash, new Date(ctx.now()).toISOString()) : null;
}

/** Every key's record (hashes and hints, never keys), oldest first. */
export async function listKeys(ctx: Pick<KeyContext, 'stores'>): Promise<ApiKeyRecord[]> {
  return ctx.stores.keys.listKeys();
}

/** Keys that must exist (the local stack's seeded keys): made when absent, left alone when present. */
export async function ensureKey(ctx: KeyContext, plan: PlanName, key: string): Promise<void> {
  if (!(await ctx.stores.keys.getKey(hashApiKey(key)))) await issueKey(ctx, plan, { key });
}

/** 401 for a missing, unknown or revoked key; 403 for a plan without API access. */
export async function authorizeKey(ctx: Pick<KeyContext, 'stores'> & { settings: Pick<Settings, 'plans'> }, key: string | undefined): Promise<Caller> {
  if (!key) throw unauthorized('missing API key: send it in the X-API-Key header');
  const record = await ctx.stores.keys.getKey(hashApiKey(key));
  if (!record || record.revoked_at) throw unauthorized('invalid API key');
  const plan = ctx.settings.plans[record.plan];
  if (!plan?.api_access) throw forbidden(`the ${record.plan} plan has no API access; subscribe to a paid plan`);
  return { account_id: record.account_id, plan: record.plan };
}
