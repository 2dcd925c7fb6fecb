/**
 * Growth checks for code that runs on strangers' input on the thread that serves SMTP and the API: four times the
 * input must cost about four times the time, not sixteen. Not a speed measurement: a slow machine does not fail it,
 * a quadratic pattern does.
 */

/** Milliseconds `work` takes, the best of three runs (the least disturbed by GC and other processes). */
function best(work: () => void): number {
  let fastest = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = process.hrtime.bigint();
    work();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return fastest;
}

/** Expects `work` on `large` (about four times `small`) to take under ten times as long as on `small`. */
export function expectLinearGrowth<T>(work: (input: T) => void, small: T, large: T): void {
  const once = best(() => work(small));
  const fourTimes = best(() => work(large));
  expect(fourTimes).toBeLessThan(Math.max(once, 5) * 10);
}
