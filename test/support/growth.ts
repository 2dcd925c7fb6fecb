/**
 * Growth checks for code that runs on strangers' input on the thread that serves SMTP and the API: sixteen times the
 * input must cost about sixteen times the work, not 256. The bar sits between the two (64), far from both: with four
 * times the input (4 against 16, bar 10) a linear parser once measured 10.9 on a loaded CI machine, its garbage
 * collection growing with the heap. Not a speed measurement: a slow or busy machine does not fail it, a quadratic
 * pattern does. Work is measured as this process's CPU time (user + system), not wall time, so
 * that other processes competing for the cores (a loaded CI machine) do not count; the small and the large input are
 * measured in turns and the least of five kept, so that one garbage collection does not decide.
 */

/** CPU milliseconds `work` takes. */
function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** Expects `work` on `large` (sixteen times `small`) to cost under 64 times its cost on `small` (at least 1 ms). */
export function expectLinearGrowth<T>(work: (input: T) => void, small: T, large: T): void {
  let once = Infinity;
  let sixteenTimes = Infinity;
  for (let round = 0; round < 5; round++) {
    once = Math.min(once, cpuMs(() => work(small)));
    sixteenTimes = Math.min(sixteenTimes, cpuMs(() => work(large)));
  }
  expect(sixteenTimes).toBeLessThan(Math.max(once, 1) * 64);
}
