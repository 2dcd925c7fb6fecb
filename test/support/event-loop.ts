/**
 * Counting the event loop's turns while some work runs: how the tests show that long work yields (the sliced search,
 * the parse thread) without timing it.
 */

/** Turns of the event loop (setImmediate callbacks run, one per turn) until `work` settles. */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}
