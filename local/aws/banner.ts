/**
 * What `npm run start:aws` prints once it is up: where each part is, as `npm start` prints its own (local/main.ts),
 * so that a user of either form finds the API, the viewer, SMTP and the data folder in the same lines.
 */
import type { InternetStandIn } from './functions';
import { devKeyFile } from '../config';

export interface BannerFacts {
  stackName: string;
  functions: number;
  readySeconds: number;
  apiUrl: string;
  stageName: string;
  restApiId: string;
  smtpHost: string;
  smtpPort: number;
  endpoints: { dynamodb: string; s3: string; sqs: string; controlPlane: string };
  dataDir: string;
  devKey?: string;
  internet?: InternetStandIn;
}

export function templateBanner(f: BannerFacts): string {
  const lines = [
    `TempMail template form is up (stack ${f.stackName}, ${f.functions} functions, ready in ${f.readySeconds.toFixed(1)} s).`,
    `  API       ${f.apiUrl}   (the ${f.stageName} stage of REST API ${f.restApiId}; OpenAPI at ${f.apiUrl}/v1/openapi.json)`,
    `  viewer    ${f.apiUrl}/   (the web inbox viewer: paste a key)`,
    `  SMTP      ${f.smtpHost}:${f.smtpPort}`,
    `  services  DynamoDB Local ${f.endpoints.dynamodb}, S3 server ${f.endpoints.s3}, SQS ${f.endpoints.sqs}, control plane ${f.endpoints.controlPlane}`,
    `  data      ${f.dataDir}`,
  ];
  if (f.internet) {
    const hosts = Object.entries(f.internet.hosts).map(([name, t]) => `${name} -> ${t.host}:${t.port}`);
    lines.push(`  internet  test stand-in: ${hosts.join(', ')}; nothing else off this machine is reachable from the functions`);
  }
  if (f.devKey) lines.push(`  dev key   ${f.devKey}   (kept in ${devKeyFile(f.dataDir)}, as npm start keeps its own; make more with: npx tempmail keys create --plan dev)`);
  return lines.join('\n');
}
