/**
 * The local stack in the foreground until Ctrl-C or SIGTERM: what `npm start` (local/main.ts) and `tempmail serve`
 * (bin/tempmail.ts, the npm package's command) run.
 */
import { ConfigError } from '../lambdas/config/app-config';
import { burstOf } from '../lambdas/core/plans';
import { configFromEnv } from './config';
import { startLocalStack } from './stack';
import { stopOnSignals } from './foreground';

async function run(): Promise<void> {
  const config = configFromEnv();
  const stack = await startLocalStack(config);
  const store = config.store === 'embedded' ? `embedded (SQLite in ${config.dataDir})` : `dynamodb (DynamoDB Local ${stack.dynamoEndpoint}, S3 server ${stack.s3Endpoint}, data in ${config.dataDir})`;
  console.log(`TempMail local stack is up.
  API       ${stack.apiUrl}   (TEMPMAIL_API_URL; routes under /v1, OpenAPI at ${stack.apiUrl}/v1/openapi.json)
  viewer    ${stack.apiUrl}/   (the web inbox viewer: paste a key)
  SMTP      ${config.host}:${stack.smtpPort}   domains: ${config.domains.join(', ')}
  store     ${store}`);
  const dev = config.rateLimits ? `${burstOf(stack.ctx.settings.plans.dev)}-request burst, ${stack.ctx.settings.plans.dev.requests_per_minute}/min` : 'never rate limited (TEMPMAIL_RATE_LIMITS=off)';
  if (stack.devKey) {
    console.log(`  dev key   ${stack.devKey}   (shown once; make more with: npx tempmail keys create --plan dev)`);
    console.log(`            dev plan: ${dev}, ${stack.ctx.settings.plans.dev.emails_per_day} mails/day; TEMPMAIL_RATE_LIMITS=off lifts the rate limit for CI bursts`);
  }
  else if (stack.hadKeys && config.printDevKey) console.log('  keys      this data folder has keys already; make one with: npx tempmail keys create --plan dev');
  console.log('READY');
  stopOnSignals(stack, 'local');
}

export function serve(): void {
  // Lambda runs Node 22; the SDK's Node 20 end-of-support notice is noise here. CloudWatch embedded metrics mean
  // nothing on one machine; printed, they would drown the log.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  run().catch((error) => {
    console.error(error instanceof ConfigError ? `local stack cannot start: ${error.message}` : `local stack failed to start: ${(error as Error).stack ?? error}`);
    process.exit(1);
  });
}
