/**
 * The stack's one full collection after a burst (local/idle-compaction.ts): exactly once at the first quiet second
 * after a busy one; never while idle or while busy; again after the next burst. And the collector it reaches is V8's
 * full collection, which shrinks a heap left grown by a burst.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { BurstEnd, compactWhenIdle } from '../../local/idle-compaction';

const decisions = (shares: number[]) => {
  const burst = new BurstEnd();
  return shares.map((share) => burst.next(share));
};

it('collects once at the first quiet second after a busy one, and never while idle or busy', () => {
  expect(decisions([0, 0.01, 0, 0.02])).toEqual([false, false, false, false]);
  expect(decisions([0.9, 1.4, 0.8])).toEqual([false, false, false]);
  expect(decisions([0.9, 1.2, 0.01, 0.0, 0.01])).toEqual([false, false, true, false, false]);
  // A second between quiet and busy (a trickle of mail) waits; the burst's end is the first quiet one.
  expect(decisions([0.9, 0.1, 0.12, 0.03, 0.0])).toEqual([false, false, false, true, false]);
  // Every burst ends with one collection.
  expect(decisions([0.5, 0.0, 0.0, 0.6, 0.0])).toEqual([false, true, false, false, true]);
});

it("reaches V8's full collection without a command-line flag, which gives back a heap a burst grew", () => {
  // This process was started without --expose-gc (else the check below proves nothing).
  expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  compactWhenIdle()(); // started and stopped: the collector was reached
  const gc = vm.runInNewContext('gc') as () => void;
  let garbage: unknown[] | undefined = Array.from({ length: 300_000 }, (_, i) => ({ i, s: `x${i}` }));
  const grown = v8.getHeapStatistics().used_heap_size;
  garbage = undefined;
  gc();
  expect(garbage).toBeUndefined();
  expect(v8.getHeapStatistics().used_heap_size).toBeLessThan(grown - 10 * 1024 * 1024);
});
