/**
 * What the IAM gate's test (test/integration/iam-gate.test.ts) runs on: the synthesized template (bundling skipped),
 * its own DynamoDB Local and S3 server with a table and bucket of their own, a gate and its proxy per template, the
 * SDK clients a function's process gets, and direct clients to the stand-ins behind no gate. Kept apart from the
 * scenarios, which read as what IAM allows and denies.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { createApp } from '../../lib/app';
import { ensureBucket, ensureTable } from '../../local/bootstrap';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/ports';
import { startS3Local, type S3Local } from '../../local/s3-local';
import { accessKeyIdFor, createIamGate, createResolver, startIamProxy, type CfnTemplate, type IamGate, type IamProxy } from '../../local/aws/iam';

export const REGION = 'us-east-1';
export const ACCOUNT = '123456789012';
export const TABLE = `iam-gate-${process.pid}`;
export const BUCKET = `iam-gate-${process.pid}`;

/** A function's logical id by its construct id (`CreateInboxFunction` → `TempMailApiCreateInboxFunction36F62F3B`). */
export const fnId = (t: CfnTemplate, name: string): string => {
  const found = Object.keys(t.Resources).filter((id) => t.Resources[id].Type === 'AWS::Lambda::Function' && new RegExp(`^TempMail(?:Api|Mail)?${name}[0-9A-F]{8}$`).test(id));
  if (found.length !== 1) throw new Error(`no single function ${name}: ${found}`);
  return found[0];
};
/** A resource's logical id by its type and a pattern of its id. */
export const idOfType = (t: CfnTemplate, type: string, pattern: RegExp): string => {
  const found = Object.keys(t.Resources).filter((id) => t.Resources[id].Type === type && pattern.test(id));
  if (found.length !== 1) throw new Error(`no single ${type} ${pattern}: ${found}`);
  return found[0];
};

/** The SDK clients a function's process gets: its own access key id, the proxy's endpoints. */
export function clientsOf(proxy: IamProxy, functionLogicalId: string) {
  const credentials = { accessKeyId: accessKeyIdFor(functionLogicalId), secretAccessKey: 'function-secret', sessionToken: 'function-session' };
  return {
    db: new DynamoDBClient({ endpoint: proxy.dynamodbEndpoint, region: REGION, credentials, maxAttempts: 1 }),
    s3: new S3Client({
      endpoint: proxy.s3Endpoint,
      region: REGION,
      credentials,
      forcePathStyle: true,
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
  };
}

/** Every (action, resource) a function's role grants, as `action resource` lines. */
export const grantsOf = (gate: IamGate, fn: string): string[] =>
  gate.policiesOf(fn).flatMap(({ policy }) =>
    policy.Statement.filter((st) => st.Effect === 'Allow').flatMap((st) =>
      ([] as string[]).concat(st.Action ?? []).flatMap((a) => ([] as string[]).concat(st.Resource ?? []).map((r) => `${a} ${r}`)),
    ),
  );

/**
 * A copy of the template with `action` removed from every statement of `functionLogicalId`'s role policies (which
 * must have it, unless `present` is false: the template may already grant it no more).
 */
export function without(t: CfnTemplate, functionLogicalId: string, action: string, present = true): CfnTemplate {
  const copy = JSON.parse(JSON.stringify(t)) as CfnTemplate;
  const role = copy.Resources[functionLogicalId].Properties!.Role['Fn::GetAtt'][0];
  let removed = 0;
  for (const r of Object.values(copy.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy' || !r.Properties!.Roles.some((x: { Ref: string }) => x.Ref === role)) continue;
    for (const s of r.Properties!.PolicyDocument.Statement) {
      const actions = ([] as string[]).concat(s.Action);
      if (actions.includes(action)) {
        s.Action = actions.filter((a) => a !== action);
        removed++;
      }
    }
  }
  if (!removed && present) throw new Error(`${functionLogicalId} has no ${action} to remove`);
  return copy;
}

/** A table item's key. */
export const item = (pk: string, sk = 'INBOX') => ({ pk: { S: pk }, sk: { S: sk } });

/**
 * Synthesizes the template and starts the stand-ins before the file's tests (registering its beforeAll and
 * afterAll); the answer reads them once they are up.
 */
export function iamGateFixture() {
  let template: CfnTemplate | undefined;
  let dynamo: DynamoDbLocal;
  let s3server: S3Local;
  const proxies: IamProxy[] = [];
  const dirs: string[] = [];

  /** Direct clients to the stand-ins, behind no gate: to see what a call did or did not change. */
  const direct = () => ({
    db: new DynamoDBClient({ endpoint: dynamo.endpoint, region: REGION, credentials: { accessKeyId: 'direct', secretAccessKey: 'direct' } }),
    s3: new S3Client({ endpoint: s3server.endpoint, region: REGION, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }),
  });

  /** The gate for a template, with the local table and bucket names, and its proxy in front of the two stand-ins. */
  async function gateFor(t: CfnTemplate): Promise<{ gate: IamGate; proxy: IamProxy; lines: string[] }> {
    const names = { [idOfType(t, 'AWS::DynamoDB::GlobalTable', /^TempMailStorageTable[0-9A-F]{8}$/)]: TABLE, [idOfType(t, 'AWS::S3::Bucket', /^TempMailStorageMail[0-9A-F]{8}$/)]: BUCKET };
    const gate = createIamGate({ template: t, region: REGION, accountId: ACCOUNT, resolve: createResolver({ template: t, region: REGION, accountId: ACCOUNT, names }) });
    const lines: string[] = [];
    const proxy = await startIamProxy({ dynamodbEndpoint: dynamo.endpoint, s3Endpoint: s3server.endpoint, gate, log: (l) => lines.push(l) });
    proxies.push(proxy);
    return { gate, proxy, lines };
  }

  beforeAll(async () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-iam-cdk-'));
    dirs.push(outdir);
    // Bundling skipped: the policies do not depend on the bundles, and synth stays under a minute.
    const { app, stack } = createApp({
      outdir,
      context: { 'tempmail:domains': ['mail.tempmail.test', 'inbox.tempmail.test', 'box.tempmail.test'], 'aws:cdk:bundling-stacks': [] },
    });
    app.synth();
    template = JSON.parse(fs.readFileSync(path.join(outdir, `${stack.artifactId}.template.json`), 'utf8'));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-iam-s3-'));
    dirs.push(dataDir);
    [dynamo, s3server] = await Promise.all([
      startDynamoDbLocal({ host: '127.0.0.1', port: await freePort() }, () => undefined),
      startS3Local({ host: '127.0.0.1', port: await freePort(), directory: dataDir, bucket: BUCKET }, () => undefined),
    ]);
    await ensureTable(direct().db, TABLE);
    await ensureBucket(direct().s3, BUCKET);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await Promise.all([dynamo?.stop(), s3server?.stop()]);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  return {
    /** The synthesized template (after beforeAll). */
    template: (): CfnTemplate => template!,
    /** A folder of this run's, removed after the file. */
    scratchDir: (): string => dirs[0],
    gateFor,
    direct,
    /** A proxy started by a test itself, closed with the others after the file. */
    closeAfterAll: (proxy: IamProxy): void => {
      proxies.push(proxy);
    },
  };
}
