/**
 * The lint runs in `npm test` (eslint.config.mjs); this keeps its exceptions few and explained: fewer than ten
 * `eslint-disable` comments in the sources, each naming its rules and saying why after ` -- `, none for a whole file.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const SKIP = new Set(['node_modules', 'dist', 'cdk.out', 'coverage', '.git']);

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.tempmail')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sources(full, out);
    else if (/\.(c|m)?[jt]sx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const disables = ['lambdas', 'lib', 'local', 'cli', 'bin', 'client/src', 'mcp/src', 'viewer', 'scripts', 'bench', 'test']
  .flatMap((dir) => sources(path.join(ROOT, dir)))
  .filter((file) => file !== __filename)
  .flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => ({ where: `${path.relative(ROOT, file)}:${i + 1}`, line }))
      .filter(({ line }) => /eslint-disable/.test(line)),
  );

it('has fewer than ten eslint-disable comments', () => {
  expect(disables.length).toBeGreaterThan(0); // the scan reads the sources (three are known)
  expect(disables.map((d) => d.where).length).toBeLessThan(10);
});

it('names the rule and the reason of each, line by line', () => {
  const unexplained = disables.filter(({ line }) => !/eslint-disable-(next-)?line [@\w/-]+( *, *[@\w/-]+)* -- \S/.test(line));
  expect(unexplained).toEqual([]);
});
