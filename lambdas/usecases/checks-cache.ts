/**
 * The checks' cache (issue 25: "computed on demand, cached with the message"). The sections that a stored message
 * always answers the same (sender, html, accessibility) and the image sources the HTML pass found (the links section
 * asks them) are kept as one JSON object beside the message's other objects (blobKeys.checks), so deleting the message
 * or its inbox, and the cleanup after an inbox expires, remove it with the rest: it lives as long as the message.
 * Authentication (DNS at check time) and links (the network at check time) are never cached.
 *
 * The cache only saves work: a read that fails or finds something unexpected is a miss, and a write that fails is
 * reported to `warn` (the function's log), never to the caller.
 */
import { CHECKS_CACHE_VERSION, SECTION_STATUSES, type Section } from '../core/checks/model';
import { blobKeys } from '../core/ports';
import type { ChecksContext } from './context';

/** What the cache keeps of one check. */
export interface DeterministicChecks {
  sections: { sender: Section; html: Section; accessibility: Section };
  /** The HTML's image sources, for the links section when it is asked. */
  images: string[];
}

interface CachedChecks extends DeterministicChecks {
  version: number;
  message_id: string;
}

const isSection = (value: unknown): value is Section => {
  const section = value as Partial<Section> | null;
  return !!section && SECTION_STATUSES.includes(section.status!) && Array.isArray(section.findings) && (section.reason === null || typeof section.reason === 'string');
};

function parsed(bytes: Buffer, messageId: string): DeterministicChecks | null {
  const cached = JSON.parse(bytes.toString('utf8')) as Partial<CachedChecks> | null;
  if (cached?.version !== CHECKS_CACHE_VERSION || cached.message_id !== messageId) return null;
  const { sender, html, accessibility } = cached.sections ?? ({} as Partial<DeterministicChecks['sections']>);
  if (!isSection(sender) || !isSection(html) || !isSection(accessibility)) return null;
  if (!Array.isArray(cached.images) || !cached.images.every((i) => typeof i === 'string')) return null;
  return { sections: { sender, html, accessibility }, images: cached.images };
}

/** The message's cached sections, or null (none stored, another version's, unreadable, or the store failed). */
export async function readCachedChecks(ctx: ChecksContext, inboxId: string, messageId: string): Promise<DeterministicChecks | null> {
  const key = blobKeys.checks(inboxId, messageId);
  try {
    const bytes = await ctx.stores.blobs.get(key);
    return bytes ? parsed(bytes, messageId) : null;
  } catch (error) {
    ctx.checks.warn('checks cache: read failed, computing instead', { key, error: (error as Error).message });
    return null;
  }
}

/** Stores the sections with the message; a failure is logged and the check answers all the same. */
export async function writeCachedChecks(ctx: ChecksContext, inboxId: string, messageId: string, checks: DeterministicChecks): Promise<void> {
  const key = blobKeys.checks(inboxId, messageId);
  const cached: CachedChecks = { version: CHECKS_CACHE_VERSION, message_id: messageId, ...checks };
  try {
    await ctx.stores.blobs.put(key, JSON.stringify(cached), 'application/json');
  } catch (error) {
    ctx.checks.warn('checks cache: write failed', { key, error: (error as Error).message });
  }
}
