/**
 * The local stack's heap budget (issue 22 item 8, RSS ≤ 150 MB): how far V8 lets the old generation grow between
 * full collections, and one full collection when the stack has gone quiet after a burst of work.
 *
 * Growth: after each full collection V8 lets the old generation grow to up to 4 times what survived it before the
 * next. Under a mail load the survivors are ~25 MB, so the heap reached 70 MB of mostly garbage and the stack's RSS
 * 163-176 MB at the end of a 2 KB load. Bounded at twice the survivors (HEAP_GROWING_PERCENT), RSS at the end of the
 * load is 132-138 MB, the CPU per 2 KB mail 705-775 µs against 680-735 just before (within the run-to-run noise, and
 * a 212 KB mail 2,750-3,150 µs against 3,150-3,250); bounded at 1.3 or 1.6 times, 115-123 MB, but each 2 KB mail
 * cost 80-150 µs more (more full collections). bench:ingest, 27 Nov; docs/PERFORMANCE.md, "Issue 22, stop 36".
 *
 * The collection after a burst:
 * V8 grows its old generation during a burst and keeps it: after 10,000 mails it held 56 MB for 21 MB of live
 * objects, and the stack's RSS stayed at 165-190 MB for as long as it ran. A full collection once the burst is over
 * gives those pages back (RSS 120-140 MB, bench:ingest). It costs 10-50 ms of the event loop, once, with nothing to
 * serve; an idle stack does no collections, and a stack kept busy does none either (V8's own run as ever).
 *
 * It waits for QUIET_SECONDS quiet seconds in a row: the pages it gives back are faulted in again by the next burst,
 * and collecting in every short pause (one second) cost a 212 KB mail load 1-2.5 ms of CPU per mail more in the
 * steady state (3 alternating pairs, 27 Nov 06:08 UTC). Busy and quiet are the process's CPU over each second (all
 * threads): above BUSY_SHARE of a core, below QUIET_SHARE. The collector is V8's own, reached without a command-line
 * flag, so `npm start` and `tempmail serve` alike get it.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** The old generation may grow to (1 + this / 100) times what survived the last full collection before the next. */
const HEAP_GROWING_PERCENT = 100;

/** Bounds the old generation's growth (V8 reads the flag at each full collection, so setting it now is enough). */
export function boundHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

const BUSY_SHARE = 0.2;
const QUIET_SHARE = 0.05;
const QUIET_SECONDS = 5;
const TICK_MS = 1_000;

/** The decision, apart from clocks and the collector: feed it each second's CPU share; true means collect now. */
export class BurstEnd {
  private sawBurst = false;
  private quiet = 0;

  next(share: number): boolean {
    if (share >= BUSY_SHARE) this.sawBurst = true;
    this.quiet = share < QUIET_SHARE ? this.quiet + 1 : 0;
    if (!this.sawBurst || this.quiet < QUIET_SECONDS) return false;
    this.sawBurst = false;
    return true;
  }
}

/** V8's full collection (what node's --expose-gc exposes as gc()); undefined where a runtime does not expose it so. */
function fullCollection(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the check (an unref'd timer: it keeps no process alive); returns what stops it. */
export function compactWhenIdle(): () => void {
  const collect = fullCollection();
  if (!collect) return () => undefined;
  const burst = new BurstEnd();
  let last = process.cpuUsage();
  let lastAt = process.hrtime.bigint();
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    const now = process.hrtime.bigint();
    const share = (used.user + used.system) / (Number(now - lastAt) / 1000);
    if (burst.next(share)) collect();
    last = process.cpuUsage();
    lastAt = process.hrtime.bigint();
  }, TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
