/**
 * The local stack in the foreground until Ctrl-C or SIGTERM: what `npm start` (local/main.ts) and `tempmail serve`
 * (bin/tempmail.ts, the npm package's command) run.
 */
import { ConfigError } from '../lambdas/config/app-config';
import { quietLibraries } from '../lambdas/config/process-env';
import { burstOf } from '../lambdas/core/plans';
import path from 'node:path';
import { configFromEnv, devKeyFile, isWildcardHost, reachableHost } from './config';
import { startLocalStack } from './stack';
import { stopOnSignals } from './foreground';
import { stopEsbuildService } from './esbuild-service';
import { boundHeapGrowth, compactWhenIdle } from './heap-budget';

async function run(): Promise<void> {
  boundHeapGrowth();
  const config = configFromEnv();
  const stack = await startLocalStack(config);
  const store = config.store === 'embedded' ? `embedded (SQLite in ${config.dataDir})` : `dynamodb (DynamoDB Local ${stack.dynamoEndpoint}, S3 server ${stack.s3Endpoint}, data in ${config.dataDir})`;
  console.log(`TempMail local stack is up.
  API       ${stack.apiUrl}   (TEMPMAIL_API_URL; routes under /v1, OpenAPI at ${stack.apiUrl}/v1/openapi.json)
  viewer    ${stack.apiUrl}/   (the web inbox viewer: paste a key)
  SMTP      ${reachableHost(config.host)}:${stack.smtpPort}   domains: ${config.domains.join(', ')}${isWildcardHost(config.host) ? `\n  listening on every interface (TEMPMAIL_HOST=${config.host}): the API and SMTP are reachable from other machines` : ''}
  store     ${store}`);
  const plan = stack.ctx.settings.plans.dev;
  const limited = `${burstOf(plan)}-request burst, ${plan.requests_per_minute}/min`;
  if (stack.devKey) {
    const rate = config.rateLimits === 'all' ? `rate limited as the dev plan (${limited})` : 'never rate limited';
    const file = path.relative(process.cwd(), devKeyFile(config.dataDir));
    console.log(`  dev key   ${stack.devKey}   (${stack.devKeyMade ? 'made now; ' : ''}scripts: KEY=$(cat ${file.startsWith('..') ? devKeyFile(config.dataDir) : file}))`);
    console.log(`            the local account: ${rate}, ${plan.emails_per_day} mails/day; keys made with \`npx tempmail keys create --plan dev\` are accounts of their own${config.rateLimits === 'none' ? '' : ` with their plan's rate limits (dev: ${limited})`}`);
  }
  // Before READY: a request that loads a handler module while esbuild's child is being ended fails with esbuild's
  // "The service is no longer running" (a 500 from the authorizer, seen in CI). After stop(), a later load starts anew.
  await stopEsbuildService().catch((error: Error) => console.log(`[local] esbuild's service not stopped: ${error.message}`));
  console.log('READY');
  compactWhenIdle();
  stopOnSignals(stack, 'local');
}

export function serve(): void {
  // Lambda runs Node 22; the SDK's Node 20 end-of-support notice is noise here. CloudWatch embedded metrics mean
  // nothing on one machine; printed, they would drown the log.
  quietLibraries({ metrics: true });
  run().catch((error) => {
    console.error(error instanceof ConfigError ? `local stack cannot start: ${error.message}` : `local stack failed to start: ${(error as Error).stack ?? error}`);
    process.exit(1);
  });
}
