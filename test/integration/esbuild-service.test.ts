/**
 * The local stack compiles its sources (tsx) and builds the web viewer with esbuild's synchronous API, which leaves
 * esbuild's service (an `esbuild` child process, 17 MB) running for later compiles (local/esbuild-service.ts). After
 * start the stack has no such child, running or zombie, and still serves.
 */
import fs from 'node:fs';
import { startStack, type StackHandle } from '../support/stack';

let stack: StackHandle;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** The names of the processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): string[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const [, name, rest] = /^\d+ \((.*)\) (.*)$/s.exec(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))!;
        return Number(rest.split(' ')[1]) === pid ? [name] : [];
      } catch {
        return [];
      }
    });
}

(process.platform === 'linux' ? it : it.skip)('leaves no esbuild process after start', async () => {
  // The viewer is built before READY; its service, once stopped, exits within moments.
  let left = childrenOf(stack.pid());
  for (let i = 0; i < 50 && left.includes('esbuild'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = childrenOf(stack.pid());
  }
  expect(left.filter((name) => name === 'esbuild')).toEqual([]);
  expect((await fetch(`${stack.apiUrl}/v1/openapi.json`)).status).toBe(200);
});
