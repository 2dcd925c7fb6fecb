/**
 * The local stack's memory after a load (issue 22 item 8, RSS ≤ 150 MB): V8's young generation grows to 32 MB by
 * default (two 16 MB semi-spaces) and keeps that much resident after a burst of mail, though the live heap is about
 * 26 MB. `npm start` and `npm run start:aws` run node with a smaller one; the tests and benchmarks start the stack
 * with the same command line (support/stack.ts npmStartCommand), so what they measure is what users run.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { npmStartCommand } from '../support/stack';

/** Allocates about 200 MB of short-lived objects and prints the young generation's size in bytes. */
const PROBE = `
  const keep = [];
  for (let i = 0; i < 3e6; i++) { const o = { i, s: 'x' + i }; if (i % 100 === 0) keep.push(o); if (keep.length > 5000) keep.length = 0; }
  console.log(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
`;

const youngGeneration = (nodeArgs: string[]) => {
  const run = spawnSync(process.execPath, [...nodeArgs, '-e', PROBE], { cwd: path.join(__dirname, '..', '..'), encoding: 'utf8' });
  expect(run.status).toBe(0);
  return Number(run.stdout.trim());
};

it.each(['start', 'start:aws'] as const)("npm run %s gives node a young generation of at most 8 MB (node's default grows to 32 MB)", (script) => {
  const command = npmStartCommand(script);
  expect(command[command.length - 1]).toMatch(/main\.ts$/);
  const flags = command.slice(0, -1);
  expect(youngGeneration(flags)).toBeLessThanOrEqual(8 * 1024 * 1024);
  // The probe measures what the flag changes: without it the same allocations grow the young generation past 8 MB.
  expect(youngGeneration(flags.filter((f) => !f.startsWith('--max-semi-space-size')))).toBeGreaterThan(8 * 1024 * 1024);
});
