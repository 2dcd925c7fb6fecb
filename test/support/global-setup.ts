import { startStack, type StackHandle } from './stack';

/** Starts the shared local stack once for the whole jest run. */
export default async function globalSetup(): Promise<void> {
  const stack = await startStack();
  (globalThis as { __TEMPMAIL_STACK__?: StackHandle }).__TEMPMAIL_STACK__ = stack;
  Object.assign(process.env, {
    TEMPMAIL_TEST_API_URL: stack.apiUrl,
    TEMPMAIL_TEST_SMTP_PORT: String(stack.smtpPort),
    TEMPMAIL_TEST_DYNAMO_ENDPOINT: stack.dynamoEndpoint,
    TEMPMAIL_TEST_S3_ENDPOINT: stack.s3Endpoint,
    TEMPMAIL_TEST_KEYS: JSON.stringify(stack.keys),
    TEMPMAIL_TEST_DOMAINS: stack.domains.join(','),
    TEMPMAIL_TEST_DATA_DIR: stack.dataDir,
  });
}
