/**
 * bench/stalls.ts's probe, in a process of its own: it asks `<api>/v1/openapi.json` every 20 ms until its stdin
 * closes, then prints the slowest answer, the count and the failures as one JSON line (after a first line, "ready"). In the benchmark's own process
 * the probe waited on the load generator too (eight clients reading 29 MB each, three senders writing 38 MB), which
 * counted the generator's stalls as the stack's.
 */
const api = process.argv[2];
let done = false;
process.stdin.on('end', () => (done = true));
process.stdin.resume();

async function probe() {
  // One answer first, not counted (this process's start and its first connection), then "ready": the load starts.
  await fetch(`${api}/v1/openapi.json`).then((res) => res.arrayBuffer());
  process.stdout.write('ready\n');
  let slowest = 0;
  let probes = 0;
  let failed = 0;
  while (!done) {
    const started = performance.now();
    // A probe that fails (a kept-alive connection reset after a stall) is counted, and the time it took still counts.
    await fetch(`${api}/v1/openapi.json`)
      .then((res) => res.arrayBuffer())
      .catch(() => failed++);
    slowest = Math.max(slowest, performance.now() - started);
    probes++;
    await new Promise((r) => setTimeout(r, 20));
  }
  process.stdout.write(`${JSON.stringify({ slowest, probes, failed })}\n`);
}

void probe();
