/**
 * The README's "Try it" block, as a user copies it: read from README.md (never restated here, so the test follows
 * the docs), run with bash in the repository's root against a running stack of either form, found through
 * TEMPMAIL_DATA_DIR as `npx tempmail env` finds it. Its output is the inbox (one line), then the curl answers back
 * to back (the wait, the list, the delete), which `jsonValues` splits.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Json } from './json';

const ROOT = path.join(__dirname, '..', '..');

/** The shell block under the README's "### Try it" heading. */
export function tryItBlock(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const match = /^### Try it\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(readme);
  if (!match) throw new Error('README.md has no "### Try it" section with a ```sh block');
  return match[1];
}

/** Runs the block with bash -e (a failing step fails the run) on the stack of `dataDir`. */
export function runTryIt(dataDir: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-c', tryItBlock()], { cwd: ROOT, env: { ...process.env, TEMPMAIL_DATA_DIR: dataDir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** JSON values written back to back (curl adds no newline), in order. */
export function jsonValues(text: string): Json[] {
  const values: Json[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if ((c === '}' || c === ']') && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)) as Json);
  }
  return values;
}

/** What the block shows when it works: an inbox, its message with the code, the list of one, the inbox emptied. */
export function expectTryItWorked(run: { status: number | null; stdout: string; stderr: string }): void {
  expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
  const [inbox, waited, list, emptied] = jsonValues(run.stdout);
  expect(inbox).toMatchObject({ id: expect.stringMatching(/^inbox_/), email: expect.stringContaining('@') });
  expect(waited).toMatchObject({ timed_out: false, message: { subject: 'Your code', codes: ['482913'], envelope: { to: inbox.email } } });
  expect(list).toMatchObject({ messages: [{ id: waited.message.id, subject: 'Your code' }], total: 1 });
  expect(emptied).toEqual({ deleted_count: 1, finished: true });
}
