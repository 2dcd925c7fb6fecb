/**
 * Jest runs TypeScript through swc; middy ships ESM only, so node_modules/@middy is transformed too.
 * Three projects:
 * - unit: domain and use cases on the embedded store, no stack and no Java (`npm run test:unit`, seconds);
 * - embedded: everything else against one local stack on the embedded store (the default form);
 * - dynamodb: the API and ingest files once more against a stack on DynamoDB Local + the S3 server, so that the
 *   AWS adapters keep being proven end to end; and the admin CLI's AWS side (`--stack`), which needs DynamoDB Local;
 * - aws-template: the same scenarios against `npm run start:aws`, the synthesized CDK template (its cdk.out bundles,
 *   API Gateway resources, receipt rule and event sources) run on this machine: HTTP, SMTP, the MCP server, and
 *   webhooks (their own template form, whose receiver is on the internet's stand-in: the deployed sender delivers to
 *   public https hosts only), the viewer in Chromium, plus what only that form shows (aws-template.test.ts).
 * A project's globalSetup runs only when one of its tests is selected.
 */
const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  // Build output (dist/package is the npm package, named like the repository) is not part of the suite.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  // The client's sources import each other as './x.js' (its package is ESM, built with NodeNext): the .ts is meant.
  moduleNameMapper: { '^(\\.{1,2}/.+)\\.js$': '$1' },
};

const withStack = (kind) => ({
  ...base,
  displayName: kind,
  setupFiles: [`<rootDir>/test/support/kinds/${kind}.ts`],
  globalSetup: `<rootDir>/test/support/kinds/${kind}-setup.ts`,
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
});

module.exports = {
  testTimeout: 60000,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/contract/embedded.test.ts'] },
    {
      ...withStack('embedded'),
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      // Files that need another project's stack: the CLI's AWS side (dynamodb) and what only the template form shows.
      testPathIgnorePatterns: [
        '<rootDir>/test/unit/',
        '<rootDir>/test/contract/embedded.test.ts',
        '<rootDir>/test/integration/cli-aws.test.ts',
        '<rootDir>/test/integration/aws-template.test.ts',
      ],
    },
    {
      ...withStack('dynamodb'),
      testMatch: [
        '<rootDir>/test/integration/api.test.ts',
        '<rootDir>/test/integration/ingest.test.ts',
        '<rootDir>/test/integration/envelope.test.ts',
        '<rootDir>/test/integration/checks.test.ts',
        '<rootDir>/test/integration/webhooks.test.ts',
        '<rootDir>/test/integration/viewer-api.test.ts',
        '<rootDir>/test/integration/delete-inbox.test.ts',
        '<rootDir>/test/integration/cli-aws.test.ts',
        '<rootDir>/test/integration/waits.test.ts',
        '<rootDir>/test/e2e/mcp-waits.test.ts',
        '<rootDir>/test/integration/extraction.test.ts',
        '<rootDir>/test/e2e/mcp-extract.test.ts',
        '<rootDir>/test/integration/snapshot.test.ts',
        '<rootDir>/test/integration/inbox-groups.test.ts',
      ],
    },
    {
      ...withStack('aws-template'),
      // Stops the stacks, then the unused-grant report over their IAM evidence (test/support/iam-evidence.ts).
      globalTeardown: '<rootDir>/test/support/kinds/aws-template-teardown.ts',
      testMatch: [
        '<rootDir>/test/integration/api.test.ts',
        '<rootDir>/test/integration/ingest.test.ts',
        '<rootDir>/test/integration/envelope.test.ts',
        '<rootDir>/test/integration/checks.test.ts',
        '<rootDir>/test/integration/client-checks.test.ts',
        '<rootDir>/test/e2e/mcp-checks.test.ts',
        '<rootDir>/test/e2e/viewer-checks.test.ts',
        '<rootDir>/test/integration/viewer-api.test.ts',
        '<rootDir>/test/integration/webhooks.test.ts',
        '<rootDir>/test/e2e/mcp.test.ts',
        '<rootDir>/test/e2e/viewer.test.ts',
        '<rootDir>/test/integration/waits.test.ts',
        '<rootDir>/test/e2e/mcp-waits.test.ts',
        '<rootDir>/test/integration/snapshot.test.ts',
        '<rootDir>/test/integration/inbox-groups.test.ts',
        '<rootDir>/test/integration/aws-template.test.ts',
      ],
    },
  ],
};
