/**
 * The web viewer on the deployed stack, on the API's own origin: the route table's viewer routes (`/` and
 * `/viewer/{asset}`) are functions whose bundle carries the viewer's built files beside the handler
 * (lambdas/api/get-viewer.ts reads them from there). The files are built from viewer/src once per synth, and API
 * Gateway compresses responses (the viewer's script is ~4× smaller gzipped). docs/DEPLOY.md explains the choice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Size } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { COMPRESSION_MIN_BYTES } from '../lambdas/contract/gateway-responses';
import { buildViewer } from '../viewer/build';

let built: string | undefined;

/** The viewer, built once per process (a synth builds one stack; the infra tests synth several). */
function viewerBuild(): string {
  if (!built || !fs.existsSync(built)) built = buildViewer(fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-viewer-'))).dir;
  return built;
}

/** Bundling additions for the viewer function: its files copied to `viewer/` beside `index.js`. */
export function viewerBundling(): Pick<BundlingOptions, 'commandHooks'> {
  const dir = viewerBuild();
  return {
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => [`cp -R "${dir}" "${path.join(outputDir, 'viewer')}"`],
    },
  };
}

/** gzip for clients that accept it, from COMPRESSION_MIN_BYTES up (the local gateway does the same). */
export function enableCompression(restApi: apigw.RestApi): void {
  (restApi.node.defaultChild as apigw.CfnRestApi).minimumCompressionSize = Size.bytes(COMPRESSION_MIN_BYTES).toBytes();
}
