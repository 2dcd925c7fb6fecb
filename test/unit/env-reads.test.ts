/**
 * Settings are read from the environment in the config modules only (eslint.config.mjs, no-restricted-properties):
 * the lint, with the configuration `npm run lint` uses, refuses process.env in any other module of lambdas/, local/,
 * cli/ and bin/ (the template form's local/aws/ included), and accepts it in lambdas/config/, local/config.ts and
 * local/aws/template-config.ts. One ESLint process lints every probe.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const REFUSED = ['local/stack.ts', 'lambdas/usecases/inboxes.ts', 'lambdas/store/probe.ts', 'cli/local-admin.ts', 'bin/tempmail.ts', 'local/aws/functions.ts', 'local/aws/template-runner.ts'];
const ACCEPTED = ['lambdas/config/app-config.ts', 'lambdas/config/process-env.ts', 'local/config.ts', 'local/aws/template-config.ts'];
const READ = 'export const port = process.env.PORT;\n';

/** The rules each probe file breaks, linted as if `READ` were that file (nothing is written). */
function rulesBroken(files: string[]): Record<string, string[]> {
  const script = `
    const { ESLint } = await import(${JSON.stringify(path.join(ROOT, 'node_modules', 'eslint', 'lib', 'api.js'))});
    const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
    const out = {};
    for (const file of ${JSON.stringify(files)}) {
      const [result] = await eslint.lintText(${JSON.stringify(READ)}, { filePath: file });
      out[file] = result.messages.map((m) => m.ruleId);
    }
    console.log(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

let broken: Record<string, string[]>;
beforeAll(() => {
  broken = rulesBroken([...REFUSED, ...ACCEPTED]);
}, 120_000);

it.each(REFUSED)('refuses process.env in %s', (file) => {
  expect(broken[file]).toContain('no-restricted-properties');
});

it.each(ACCEPTED)('accepts process.env in the config module %s', (file) => {
  expect(broken[file]).not.toContain('no-restricted-properties');
});
