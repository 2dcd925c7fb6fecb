/**
 * Jest runs TypeScript through swc; middy ships ESM only, so node_modules/@middy is transformed too.
 * The projects follow the test folders (the tiers, test/tiers.js has the rule and the lists):
 * - unit: domain and use cases on the embedded store, no stack and no Java (`npm run test:unit`, seconds);
 * - contract: the storage contract, on the embedded store and on DynamoDB Local + the S3 server (its own, Java);
 * - infra: the CDK stack, synthesized (minutes: the bundled synth), no stack;
 * - embedded: integration/, reliability/ and e2e/ against one local stack on the embedded store (the default form);
 * - dynamodb: the API and ingest files once more against a stack on DynamoDB Local + the S3 server, so that the
 *   AWS adapters keep being proven end to end; and the admin CLI's AWS side (`--stack`), which needs DynamoDB Local;
 * - aws-template: the same scenarios against `npm run start:aws`, the synthesized CDK template (its cdk.out bundles,
 *   API Gateway resources, receipt rule and event sources) run on this machine: HTTP, SMTP, the MCP server, and
 *   webhooks (their own template form, whose receiver is on the internet's stand-in: the deployed sender delivers to
 *   public https hosts only), the viewer in Chromium, plus what only that form shows (aws-template.test.ts).
 * A project's globalSetup runs only when one of its tests is selected.
 */
const { TIERS, RERUN, ONLY_ON } = require('./test/tiers');

const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  // Build output (dist/package is the npm package, named like the repository) is not part of the suite.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  // The client's sources import each other as './x.js' (its package is ESM, built with NodeNext): the .ts is meant.
  // zod's English messages (lambdas/contract/schemas.ts) as its CommonJS file: jest's loader cannot require ESM on Node 20.
  moduleNameMapper: { '^(\\.{1,2}/.+)\\.js$': '$1', '^zod/v4/locales/en\\.js$': 'zod/v4/locales/en.cjs' },
};

const withStack = (kind) => ({
  ...base,
  displayName: kind,
  setupFiles: [`<rootDir>/test/support/kinds/${kind}.ts`],
  globalSetup: `<rootDir>/test/support/kinds/${kind}-setup.ts`,
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
});

/** A home project: the files of its folders, but those that run only on another form. */
const home = (name) => ({
  testMatch: Object.keys(TIERS)
    .filter((folder) => TIERS[folder] === name)
    .map((folder) => `<rootDir>/test/${folder}/**/*.test.ts`),
  testPathIgnorePatterns: Object.keys(ONLY_ON).map((file) => `<rootDir>/${file}`),
});

/** Another storage form: the files it runs again, and those that run on it only. */
const form = (name) => ({
  testMatch: [...RERUN[name], ...Object.keys(ONLY_ON).filter((file) => ONLY_ON[file] === name)].map((file) => `<rootDir>/${file}`),
});

module.exports = {
  testTimeout: 60000,
  projects: [
    { ...base, displayName: 'unit', ...home('unit') },
    { ...base, displayName: 'contract', ...home('contract') },
    { ...base, displayName: 'infra', ...home('infra') },
    { ...withStack('embedded'), ...home('embedded') },
    { ...withStack('dynamodb'), ...form('dynamodb') },
    {
      ...withStack('aws-template'),
      // Stops the stacks, then the unused-grant report over their IAM evidence (test/support/iam-evidence.ts).
      globalTeardown: '<rootDir>/test/support/kinds/aws-template-teardown.ts',
      ...form('aws-template'),
    },
  ],
};
