/**
 * The checks cache only saves work (lambdas/usecases/checks-cache.ts): a store that fails to read is a miss, one that
 * fails to write is logged, and neither throws to the check. An object of another rules version or another message
 * is not served. The store here is a stand-in whose calls fail, the failure itself being what is under test.
 */
import { CHECKS_CACHE_VERSION, complete, skipped } from '../../lambdas/core/checks/model';
import { blobKeys, type BlobStore } from '../../lambdas/core/ports';
import { readCachedChecks, writeCachedChecks, type DeterministicChecks } from '../../lambdas/usecases/checks-cache';
import type { ChecksContext } from '../../lambdas/usecases/context';

const checks: DeterministicChecks = {
  sections: { sender: complete([{ id: 'date', result: 'fail', detail: 'no Date' }]), html: skipped('no HTML'), accessibility: skipped('no HTML') },
  images: [],
};

function contextWith(blobs: Partial<BlobStore>) {
  const warnings: string[] = [];
  const ctx = { stores: { blobs }, checks: { warn: (message: string) => warnings.push(message) } } as unknown as ChecksContext;
  return { ctx, warnings };
}

it('a failing read is a miss and a failing write is logged; neither throws', async () => {
  const { ctx, warnings } = contextWith({
    get: () => Promise.reject(new Error('S3 down')),
    put: () => Promise.reject(new Error('S3 down')),
  });
  await expect(readCachedChecks(ctx, 'inb_1', 'msg_1')).resolves.toBeNull();
  await expect(writeCachedChecks(ctx, 'inb_1', 'msg_1', checks)).resolves.toBeUndefined();
  expect(warnings).toEqual(['checks cache: read failed, computing instead', 'checks cache: write failed']);
});

it('serves what it wrote, and not an object of another version or another message', async () => {
  const objects = new Map<string, Buffer>();
  const { ctx } = contextWith({
    get: async (key) => objects.get(key) ?? null,
    put: async (key, body) => void objects.set(key, Buffer.from(body as string)),
  });
  await writeCachedChecks(ctx, 'inb_1', 'msg_1', checks);
  expect([...objects.keys()]).toEqual([blobKeys.checks('inb_1', 'msg_1')]);
  expect(blobKeys.checks('inb_1', 'msg_1')).toBe(`inboxes/inb_1/msg_1/checks-v${CHECKS_CACHE_VERSION}.json`);
  await expect(readCachedChecks(ctx, 'inb_1', 'msg_1')).resolves.toEqual(checks);
  const stored = JSON.parse(objects.get(blobKeys.checks('inb_1', 'msg_1'))!.toString());
  objects.set(blobKeys.checks('inb_1', 'msg_1'), Buffer.from(JSON.stringify({ ...stored, version: CHECKS_CACHE_VERSION - 1 })));
  await expect(readCachedChecks(ctx, 'inb_1', 'msg_1')).resolves.toBeNull();
  objects.set(blobKeys.checks('inb_1', 'msg_1'), Buffer.from(JSON.stringify({ ...stored, message_id: 'msg_2' })));
  await expect(readCachedChecks(ctx, 'inb_1', 'msg_1')).resolves.toBeNull();
});
