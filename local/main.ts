/** `npm start`: the local stack in the foreground until Ctrl-C or SIGTERM. */
import { configFromEnv } from './config';
import { startLocalStack } from './stack';

async function main(): Promise<void> {
  const config = configFromEnv();
  const stack = await startLocalStack(config);
  console.log(`TempMail local stack is up.
  API       ${stack.apiUrl}/v1   (OpenAPI: ${stack.apiUrl}/v1/openapi.json)
  SMTP      ${config.host}:${stack.smtpPort}   domains: ${config.domains.join(', ')}
  data      ${config.dataDir}`);
  if (stack.devKey) console.log(`  dev key   ${stack.devKey}   (shown once; make more with: npm run tempmail -- keys create --plan dev)`);
  console.log('READY');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await stack.stop();
    process.exit(0);
  };
  // A server keeps serving: a stray rejection is logged, not fatal (accepted mail is safe in inbound/ either way).
  process.on('unhandledRejection', (reason) => console.error('[local] unhandled rejection:', reason));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(`local stack failed to start: ${(error as Error).stack ?? error}`);
  process.exit(1);
});
