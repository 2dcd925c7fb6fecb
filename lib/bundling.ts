/**
 * esbuild options for every function, shared by the CDK construct (NodejsFunction) and anything else that bundles
 * the handlers, so what is tested locally is bundled the way it deploys.
 */
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

export const BUNDLING: BundlingOptions = {
  minify: true,
  sourceMap: false,
  target: 'node24',
  format: OutputFormat.CJS,
  // The Node.js 24 runtime ships AWS SDK v3: leaving it out keeps every bundle small and cold starts short.
  externalModules: ['@aws-sdk/*'],
  // middy is ESM-only; esbuild bundles it into the CommonJS output.
  mainFields: ['module', 'main'],
};
