/**
 * Growth checks for code that runs on strangers' input on the thread that serves SMTP and the API: four times the
 * input must cost about four times the work, not sixteen. Not a speed measurement: a slow or busy machine does not
 * fail it, a quadratic pattern does. Work is measured as this process's CPU time (user + system), not wall time, so
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

/** Expects `work` on `large` (about four times `small`) to cost under ten times its cost on `small`. */
export function expectLinearGrowth<T>(work: (input: T) => void, small: T, large: T): void {
  let once = Infinity;
  let fourTimes = Infinity;
  for (let round = 0; round < 5; round++) {
    once = Math.min(once, cpuMs(() => work(small)));
    fourTimes = Math.min(fourTimes, cpuMs(() => work(large)));
  }
  expect(fourTimes).toBeLessThan(Math.max(once, 5) * 10);
}
