/**
 * The stack's one full collection after a burst (local/heap-budget.ts compactWhenIdle): exactly once after five quiet seconds in
 * a row that follow a busy one; never while idle, while busy or in a short pause; again after the next burst. And the collector it reaches is V8's
 * full collection, which shrinks a heap left grown by a burst.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { BurstEnd, compactWhenIdle } from '../../local/heap-budget';

const decisions = (shares: number[]) => {
  const burst = new BurstEnd();
  return shares.map((share) => burst.next(share));
};

it('collects once after five quiet seconds in a row that follow a busy one, and never while idle or busy', () => {
  const quiet = [0.01, 0, 0.02, 0, 0.01];
  expect(decisions([0, 0.01, 0, 0.02, 0, 0, 0])).toEqual([false, false, false, false, false, false, false]);
  expect(decisions([0.9, 1.4, 0.8, 0.9])).toEqual([false, false, false, false]);
  expect(decisions([0.9, 1.2, ...quiet, 0, 0])).toEqual([false, false, false, false, false, false, true, false, false]);
  // A short pause between loads (a test step, the next batch) collects nothing: its pages would be faulted in again.
  expect(decisions([0.9, 0, 0, 0.9, 0, 0, 0, 0.8])).toEqual(Array(8).fill(false));
  // A second between quiet and busy (a trickle of mail) starts the count again.
  expect(decisions([0.9, 0, 0, 0.1, ...quiet])).toEqual([false, false, false, false, false, false, false, false, true]);
  // Every burst ends with one collection.
  expect(decisions([0.5, ...quiet, 0.6, ...quiet])).toEqual([false, false, false, false, false, true, false, false, false, false, false, true]);
});

it("reaches V8's full collection without a command-line flag, which gives back a heap a burst grew", () => {
  // This process was started without --expose-gc (else the check below proves nothing).
  expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  compactWhenIdle()(); // started and stopped: the collector was reached
  const gc = vm.runInNewContext('gc') as () => void;
  // A burst's garbage: built and dropped inside a function, so nothing holds it once it returns.
  const grown = (() => Array.from({ length: 300_000 }, (_, i) => ({ i, s: `x${i}` })).length && v8.getHeapStatistics().used_heap_size)();
  gc();
  expect(v8.getHeapStatistics().used_heap_size).toBeLessThan(grown - 10 * 1024 * 1024);
});
