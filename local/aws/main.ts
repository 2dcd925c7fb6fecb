/** `npm run start:aws`: the synthesized template run on this machine (template-runner.ts), until Ctrl-C or SIGTERM. */
import { ConfigError } from '../../lambdas/config/app-config';
import { startTemplateStack, templateConfigFromEnv } from './template-runner';
import { stopOnSignals } from '../foreground';

async function main(): Promise<void> {
  const started = Date.now();
  const config = templateConfigFromEnv();
  const stack = await startTemplateStack(config);
  const fns = stack.functions.specs.length;
  console.log(`TempMail template form is up (stack ${stack.model.stackName}, ${fns} functions, ready in ${((Date.now() - started) / 1000).toFixed(1)} s).
  API       ${stack.apiUrl}   (the ${stack.gateway.stageName} stage of REST API ${stack.gateway.restApiId}; OpenAPI at ${stack.apiUrl}/v1/openapi.json)
  SMTP      ${config.host}:${stack.smtpPort}
  services  DynamoDB Local ${stack.endpoints.dynamodb}, S3 server ${stack.endpoints.s3}, SQS ${stack.endpoints.sqs}, control plane ${stack.endpoints.controlPlane}
  data      ${config.dataDir}`);
  if (stack.devKey) console.log(`  dev key   ${stack.devKey}   (shown once; make more with: npx tempmail keys create --plan dev)`);
  console.log('READY');
  stopOnSignals(stack, 'aws');
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

main().catch((error) => {
  console.error(error instanceof ConfigError ? `start:aws cannot start: ${error.message}` : `start:aws failed to start: ${(error as Error).stack ?? error}`);
  process.exit(1);
});
