/** The one local stack that jest's globalSetup started for the whole run, described through the environment. */
import type { Keys } from './stack';

export interface SharedStack {
  apiUrl: string;
  smtpPort: number;
  dynamoEndpoint: string;
  s3Endpoint: string;
  keys: Keys;
  domains: string[];
}

export function sharedStack(): SharedStack {
  const env = process.env;
  if (!env.TEMPMAIL_TEST_API_URL) throw new Error('no shared stack: run the tests through jest (globalSetup starts it)');
  return {
    apiUrl: env.TEMPMAIL_TEST_API_URL,
    smtpPort: Number(env.TEMPMAIL_TEST_SMTP_PORT),
    dynamoEndpoint: env.TEMPMAIL_TEST_DYNAMO_ENDPOINT!,
    s3Endpoint: env.TEMPMAIL_TEST_S3_ENDPOINT!,
    keys: JSON.parse(env.TEMPMAIL_TEST_KEYS!) as Keys,
    domains: env.TEMPMAIL_TEST_DOMAINS!.split(','),
  };
}
