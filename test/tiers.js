/**
 * Which jest project runs which test file (jest.config.js builds its projects from this; test/unit/test-tiers.test.ts
 * checks jest's own listing against it). A test's folder is its tier, and each tier has one home project:
 *
 * - unit/, contract/ and infra/ need no stack, and each is a project of its own;
 * - integration/, reliability/ and e2e/ run against a stack: their home is `embedded`, whose global setup starts
 *   one shared local stack on the embedded store.
 *
 * The other storage forms run some of those files once more, on purpose, so that the AWS adapters and the
 * synthesized template stay proven end to end by the same scenarios: each form names its files (RERUN), from the
 * folders it may take them from (FORMS). A few files test what exists in one other form only, and run there instead
 * of in their home project (ONLY_ON). No other placement is allowed.
 */

/** Folder under test/ → its home project. */
const TIERS = {
  unit: 'unit',
  contract: 'contract',
  infra: 'infra',
  integration: 'embedded',
  reliability: 'embedded',
  e2e: 'embedded',
};

/** The storage forms besides the embedded one → the folders whose files they may run. */
const FORMS = {
  dynamodb: ['integration', 'e2e'],
  'aws-template': ['integration', 'e2e'],
};

/** Files each form runs again (their home project runs them too). */
const RERUN = {
  // The API, ingest, webhook and viewer-API files against a stack on DynamoDB Local and the S3 server.
  dynamodb: [
    'test/integration/api.test.ts',
    'test/integration/ingest.test.ts',
    'test/integration/envelope.test.ts',
    'test/integration/checks.test.ts',
    'test/integration/webhooks.test.ts',
    'test/integration/viewer-api.test.ts',
    'test/integration/delete-inbox.test.ts',
    'test/integration/waits.test.ts',
    'test/e2e/mcp-waits.test.ts',
    'test/integration/extraction.test.ts',
    'test/e2e/mcp-extract.test.ts',
    'test/integration/snapshot.test.ts',
    'test/integration/inbox-groups.test.ts',
  ],
  // The same scenarios against `npm run start:aws`, the synthesized CDK template run on this machine: HTTP, SMTP,
  // the MCP server, webhooks (their own template form), the viewer in Chromium.
  'aws-template': [
    'test/integration/api.test.ts',
    'test/integration/ingest.test.ts',
    'test/integration/envelope.test.ts',
    'test/integration/checks.test.ts',
    'test/integration/client-checks.test.ts',
    'test/e2e/mcp-checks.test.ts',
    'test/e2e/viewer-checks.test.ts',
    'test/integration/viewer-api.test.ts',
    'test/integration/webhooks.test.ts',
    'test/e2e/mcp.test.ts',
    'test/e2e/viewer.test.ts',
    'test/integration/waits.test.ts',
    'test/e2e/mcp-waits.test.ts',
    'test/integration/snapshot.test.ts',
    'test/integration/inbox-groups.test.ts',
    'test/integration/extraction.test.ts',
    'test/e2e/mcp-extract.test.ts',
  ],
};

/** Files that run only in another form than their home project's: what they test is there alone. */
const ONLY_ON = {
  // The admin CLI's AWS side (`--stack`), which needs DynamoDB Local.
  'test/integration/cli-aws.test.ts': 'dynamodb',
  // What only the template form shows (its functions' environments, the receipt rule, the event sources).
  'test/integration/aws-template.test.ts': 'aws-template',
};

module.exports = { TIERS, FORMS, RERUN, ONLY_ON };
