/**
 * Test folders are tiers and each tier has its project (issue 26): jest's own listing of every project, read from
 * jest.config.js as `jest --listTests` reads it, against the rule in test/tiers.js. A test file that no project runs,
 * or that a project runs from a folder it may not take, fails here.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { FORMS, ONLY_ON, RERUN, TIERS } from '../tiers';

const ROOT = path.join(__dirname, '..', '..');
const TEST = path.join(ROOT, 'test');
const PROJECTS = [...new Set([...Object.values(TIERS), ...Object.keys(FORMS)])];

/** Every *.test.ts under test/, as a path from the repository's root. */
const testFiles = (fs.readdirSync(TEST, { recursive: true }) as string[])
  .map((file) => `test/${file.split(path.sep).join('/')}`)
  .filter((file) => file.endsWith('.test.ts') && !file.startsWith('test/fixtures/'))
  .sort();
const folderOf = (file: string) => file.split('/')[1];

/** project → the files jest runs in it. */
let listed: Record<string, string[]>;
beforeAll(async () => {
  const jest = path.join(ROOT, 'node_modules', '.bin', 'jest');
  const lists = await Promise.all(
    PROJECTS.map(async (project) => {
      const { stdout } = await promisify(execFile)(jest, ['--listTests', '--json', '--selectProjects', project], { cwd: ROOT, maxBuffer: 8 << 20 });
      return (JSON.parse(stdout) as string[]).map((file) => path.relative(ROOT, file).split(path.sep).join('/')).sort();
    }),
  );
  listed = Object.fromEntries(PROJECTS.map((project, i) => [project, lists[i]]));
}, 120_000);

it('finds the test files and the projects', () => {
  expect(testFiles.length).toBeGreaterThan(90);
  expect(PROJECTS).toEqual(['unit', 'contract', 'infra', 'embedded', 'dynamodb', 'aws-template']);
  for (const project of PROJECTS) expect(listed[project].length).toBeGreaterThan(0);
});

it('has every test file in a tier folder, and names only files that exist', () => {
  expect(testFiles.filter((file) => !(folderOf(file) in TIERS))).toEqual([]);
  const named = [...Object.values(RERUN).flat(), ...Object.keys(ONLY_ON)];
  expect(named.filter((file) => !testFiles.includes(file))).toEqual([]);
});

it('runs every test file in its home project, or on the one form it is only for', () => {
  const home = (file: string) => ONLY_ON[file] ?? TIERS[folderOf(file)];
  expect(testFiles.filter((file) => !listed[home(file)]?.includes(file))).toEqual([]);
});

it('runs a file in a project only if its folder or the rule allows it', () => {
  const allowed = (project: string, file: string) =>
    TIERS[folderOf(file)] === project
      ? ONLY_ON[file] === undefined
      : (FORMS[project]?.includes(folderOf(file)) ?? false) && (RERUN[project]?.includes(file) || ONLY_ON[file] === project);
  const misplaced = PROJECTS.flatMap((project) => listed[project].filter((file) => !allowed(project, file)).map((file) => `${project}: ${file}`));
  expect(misplaced).toEqual([]);
});

it('runs each re-run file in its form as well as in its home project', () => {
  const missing = Object.entries(RERUN).flatMap(([project, files]) =>
    files.filter((file) => !listed[project].includes(file) || !listed[TIERS[folderOf(file)]].includes(file)).map((file) => `${project}: ${file}`),
  );
  expect(missing).toEqual([]);
});
