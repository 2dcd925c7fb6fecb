/**
 * esbuild options for every function, shared by the CDK construct (NodejsFunction) and scripts/bundle-lambdas.ts,
 * so the bundles the local end-to-end tests load are built exactly the way they deploy.
 */
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as lambda from 'aws-cdk-lib/aws-lambda';

/** Pinned, not "latest": a runtime change is a reviewed change. */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_22_X;
export const ESBUILD_TARGET = 'node22';

/**
 * The Node.js 22 runtime ships AWS SDK v3, so `@aws-sdk/*` stays out of the bundles: every API bundle would
 * otherwise carry several hundred KB of SDK (longer cold starts). docs/DEPLOY.md has the trade-off.
 */
export const EXTERNAL_MODULES = ['@aws-sdk/*'];

export const BUNDLING: BundlingOptions = {
  minify: true,
  sourceMap: false,
  target: ESBUILD_TARGET,
  format: OutputFormat.CJS,
  externalModules: EXTERNAL_MODULES,
  // middy is ESM-only; preferring `module` lets esbuild bundle it (and tree-shake ESM packages) into the CJS output.
  mainFields: ['module', 'main'],
};
