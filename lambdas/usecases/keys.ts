/** API key use cases: issue, list, revoke, and authorize a request's key. Keys are stored as SHA-256 only. */
import { randomUUID } from 'node:crypto';
import { forbidden, unauthorized } from '../core/errors';
import { hashApiKey, keyHint, newApiKey } from '../core/ids';
import type { ApiKeyRecord, Caller } from '../core/model';
import type { Plan, PlanName } from '../core/plans';
import type { KeyStore } from '../core/ports';

export interface IssuedKey {
  key: string;
  record: ApiKeyRecord;
}

/** A new key is its own account unless an account id is given. `key` lets seeded keys keep a known value. */
export async function issueKey(
  keys: KeyStore,
  plan: PlanName,
  options: { key?: string; accountId?: string; apiKeyId?: string; nowMs?: number } = {},
): Promise<IssuedKey> {
  const key = options.key ?? newApiKey();
  const record: ApiKeyRecord = {
    key_hash: hashApiKey(key),
    account_id: options.accountId ?? `acct_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    plan,
    hint: keyHint(key),
    created_at: new Date(options.nowMs ?? Date.now()).toISOString(),
    ...(options.apiKeyId ? { api_key_id: options.apiKeyId } : {}),
  };
  await keys.putKey(record);
  return { key, record };
}

/** The key named by its value or by its hash (the listing shows hashes, never values). */
export async function findKey(keys: KeyStore, keyOrHash: string): Promise<ApiKeyRecord | null> {
  const hash = /^[0-9a-f]{64}$/.test(keyOrHash) ? keyOrHash : hashApiKey(keyOrHash);
  return keys.getKey(hash);
}

export async function revokeKey(keys: KeyStore, keyOrHash: string, nowMs = Date.now()): Promise<ApiKeyRecord | null> {
  const found = await findKey(keys, keyOrHash);
  return found ? keys.revokeKey(found.key_hash, new Date(nowMs).toISOString()) : null;
}

/** 401 for a missing, unknown or revoked key; 403 for a plan without API access. */
export async function authorizeKey(keys: KeyStore, plans: Record<PlanName, Plan>, key: string | undefined): Promise<Caller> {
  if (!key) throw unauthorized('missing API key: send it in the X-API-Key header');
  const record = await keys.getKey(hashApiKey(key));
  if (!record || record.revoked_at) throw unauthorized('invalid API key');
  const plan = plans[record.plan];
  if (!plan?.api_access) throw forbidden(`the ${record.plan} plan has no API access; subscribe to a paid plan`);
  return { account_id: record.account_id, plan: record.plan };
}
