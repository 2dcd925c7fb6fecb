/**
 * ESLint with typescript-eslint's recommended rules, part of `npm test` (`npm run lint`). The code passes without
 * blanket disables: an `eslint-disable` comment names one rule on one line and says why, and there are fewer than ten
 * (test/unit/lint-budget.test.ts counts them). Type-aware rules are left out: tsc (`npm run typecheck`) checks types,
 * and their cost on this two-core machine would double the lint's time.
 */
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/', '**/dist/', 'cdk.out/', 'coverage/', '.tempmail*/', 'test/fixtures/client-consumer/*.js'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Unused names are errors, except those that say so (`_x`) and rest siblings that drop keys from an object.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Node's globals are declared by @types/node, checked by tsc.
      'no-undef': 'off',
      // Mail is written by strangers: this code strips and escapes control characters on purpose (hostile subjects,
      // file names, response excerpts), so a control character in a pattern is meant, not the typo the rule assumes.
      'no-control-regex': 'off',
      // Modules loaded only when needed, by a literal name the bundler and dependency-cruiser still see: the embedded
      // form loads no AWS SDK client and the functions no SQLite (lambdas/app/, store/index.ts, the webhook adapters),
      // the CLI and the local stack load their AWS side only with --stack or the dynamodb form, libsql and s3rver are
      // loaded where they run (and in tests that open a data folder), selfsigned only when a first start makes a
      // certificate, the viewer's build and esbuild only when the stack builds it, `tempmail serve` only when asked.
      // Any other require() is an error.
      '@typescript-eslint/no-require-imports': [
        'error',
        {
          allow: [
            '^\\./aws-context$',
            '^\\.\\./store$',
            '^\\./s3-blob-store$',
            '^@aws-sdk/client-(kms|sqs)$',
            '^libsql$',
            '^@20minutes/s3rver$',
            '^selfsigned$',
            '^\\./(stand-ins|keys)$',
            '^\\.\\./local/(stand-ins|aws/template-runner)$',
            '^\\.\\./cli/aws-admin$',
            '^\\.\\./viewer/build$',
            '^\\.\\./local/serve$',
            '^esbuild$',
          ],
        },
      ],
    },
  },
  {
    // Settings come from the environment through the config modules only (lambdas/config/: the app's config, the log
    // level, the process's own switches; local/config.ts: the local stack's; local/aws/template-config.ts: the
    // template form's): every other module is handed them, so each setting has one reader and one default.
    files: ['lambdas/**/*.ts', 'local/**/*.ts', 'cli/**/*.ts', 'bin/**/*.ts'],
    ignores: ['lambdas/config/**', 'local/config.ts', 'local/aws/template-config.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read settings in a config module (lambdas/config/, local/config.ts) and pass them in' }],
    },
  },
  {
    // The consumer fixture proves that a CommonJS TypeScript project can `import x = require()` the client package.
    files: ['test/fixtures/client-consumer/cjs.cts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
