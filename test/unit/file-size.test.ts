/**
 * No source file over 400 lines (issue 26): a file that long holds more than one concern, and is split by concern
 * (as local/aws/api-gateway.ts and control-plane were, the last ones held at their length). No exceptions.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const MAX_LINES = 400;

const tracked = execFileSync('git', ['ls-files', 'lambdas', 'lib', 'local', 'cli', 'bin', 'client/src', 'mcp/src', 'viewer', 'scripts', 'bench', 'test'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((file) => /\.(c|m)?[jt]sx?$/.test(file) && !file.startsWith('test/fixtures/') && fs.existsSync(path.join(ROOT, file)));
const lines = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;

it('reads the sources', () => {
  expect(tracked.length).toBeGreaterThan(100);
});

it(`has no source file over ${MAX_LINES} lines`, () => {
  const over = tracked.map((file) => ({ file, lines: lines(file) })).filter(({ lines }) => lines > MAX_LINES);
  expect(over).toEqual([]);
});
