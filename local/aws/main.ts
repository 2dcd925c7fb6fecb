/** `npm run start:aws`: the synthesized template run on this machine (template-runner.ts), until Ctrl-C or SIGTERM. */
import { ConfigError } from '../../lambdas/config/app-config';
import { quietLibraries } from '../../lambdas/config/process-env';
import { templateConfigFromEnv } from './template-config';
import { startTemplateStack } from './template-runner';
import { stopOnSignals } from '../foreground';
import { templateBanner } from './banner';

async function main(): Promise<void> {
  const started = Date.now();
  const config = templateConfigFromEnv();
  const stack = await startTemplateStack(config);
  console.log(
    templateBanner({
      stackName: stack.model.stackName,
      functions: stack.functions.specs.length,
      readySeconds: (Date.now() - started) / 1000,
      apiUrl: stack.apiUrl,
      stageName: stack.gateway.stageName,
      restApiId: stack.gateway.restApiId,
      smtpHost: config.host,
      smtpPort: stack.smtpPort,
      endpoints: stack.endpoints,
      dataDir: config.dataDir,
      devKey: stack.devKey,
      internet: config.internet,
    }),
  );
  console.log('READY');
  stopOnSignals(stack, 'aws');
}

quietLibraries();

main().catch((error) => {
  console.error(error instanceof ConfigError ? `start:aws cannot start: ${error.message}` : `start:aws failed to start: ${(error as Error).stack ?? error}`);
  process.exit(1);
});
