/**
 * `npm run start:aws`: the synthesized CloudFormation template run on this machine, the way SAM CLI and LocalStack
 * users run theirs, with no Docker. Everything it runs comes from the template, not from lib/ or the route table:
 * - DynamoDB Local and the S3 server (the same stand-ins as TEMPMAIL_STORE=dynamodb) with the template's tables and
 *   buckets (resources.ts); SQS in process with the template's queues (sqs.ts);
 * - the control-plane stand-in (control-plane/) for what has no local data plane: CloudFormation's DescribeStacks
 *   (the template's Outputs, so `tempmail … --stack` finds its way), API Gateway's API keys and usage-plan keys, the
 *   SES receipt rule sets and KMS;
 * - every Lambda function from its cdk.out asset, in processes of its own with the template's Environment
 *   (functions.ts); the REST API from its API Gateway resources (api-gateway.ts); the custom resources invoked
 *   through Create at start (a failure stops the start, as CloudFormation rolls back) and Delete at stop.
 * The state file (stack.json in the data folder, as the local stack writes) tells the keys CLI where it all is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { ConfigError } from '../../lambdas/config/app-config';
import { setProcessEnv } from '../../lambdas/config/process-env';
import { standInSettings } from '../../lambdas/layout/stand-ins';
import { writeDevKeyFile } from '../config';
import { startDynamoDbLocal } from '../dynamodb-local';
import { freePort } from '../ports';
import { startS3Local } from '../s3-local';
import { runningStackOf, stateFile, type StackState } from '../stack';
import { TemplateApiGateway } from './api-gateway';
import { startControlPlane, type ControlPlane } from './control-plane';
import { FunctionRunner, type ServiceEndpoints } from './functions';
import { createIamGate, functionForAccessKeyId, startIamProxy, writeEvidence, type IamGate } from './iam';
import { createBuckets, createTables, type TableInfo } from './resources';
import { createCustomResources, deleteCustomResources } from './custom-resources';
import { EventSources } from './events';
import { TemplateMailServer } from './mail';
import { LocalSqs } from './sqs';
import { LocalStackModel, locateTemplate, LOCAL_REGION, TEMPLATE_KIND } from './template';
import type { AwsJson } from './cfn-json';
import type { TemplateRunConfig } from './template-config';

/** What the template form writes to its state file: the local stack's fields, and where each service is. */
export interface TemplateStackState extends StackState {
  kind: typeof TEMPLATE_KIND;
  stackName: string;
  templateFile: string;
  endpoints: { dynamodb: string; s3: string; sqs: string; controlPlane: string };
  region: string;
  /** The stack's outputs as DescribeStacks answers them (TableName, BucketName, …). */
  outputs: Record<string, string>;
}

export interface TemplateStack {
  apiUrl: string;
  smtpPort: number;
  model: LocalStackModel;
  functions: FunctionRunner;
  sqs: LocalSqs;
  controlPlane: ControlPlane;
  gateway: TemplateApiGateway;
  /** The IAM gate: its evidence lists each function's allowed calls. */
  gate: IamGate;
  mail: TemplateMailServer;
  events: EventSources;
  tables: TableInfo[];
  buckets: string[];
  endpoints: TemplateStackState['endpoints'];
  devKey?: string;
  stop(): Promise<void>;
}

/** The SDK settings of this process (the operator, as the CLI is): every service at its local endpoint. */
export function operatorEnv(endpoints: TemplateStackState['endpoints'], region = LOCAL_REGION): Record<string, string> {
  return {
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: 'AKIALOCALOPERATOR000',
    AWS_SECRET_ACCESS_KEY: 'local-operator',
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_ENDPOINT_URL_CLOUDFORMATION: endpoints.controlPlane,
    AWS_ENDPOINT_URL_API_GATEWAY: endpoints.controlPlane,
    AWS_ENDPOINT_URL_SES: endpoints.controlPlane,
    AWS_ENDPOINT_URL_KMS: endpoints.controlPlane,
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

export async function startTemplateStack(config: TemplateRunConfig, log: (line: string) => void = console.log): Promise<TemplateStack> {
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const kindFile = path.join(config.dataDir, 'store-kind');
  const kind = fs.existsSync(kindFile) ? fs.readFileSync(kindFile, 'utf8').trim() : undefined;
  if (kind && kind !== TEMPLATE_KIND) throw new ConfigError(`the data folder ${config.dataDir} holds a ${kind} store of npm start: give start:aws its own TEMPMAIL_DATA_DIR`);
  if (!kind) fs.writeFileSync(kindFile, `${TEMPLATE_KIND}\n`);
  const running = runningStackOf(config.dataDir);
  if (running) throw new ConfigError(`the data folder ${config.dataDir} is in use by the stack running as process ${running.pid} (API ${running.apiUrl}): stop it, or give this one its own TEMPMAIL_DATA_DIR`);

  const stops: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch((error) => log(`[aws] stopping: ${(error as Error).message}`));
  };
  try {
    const location = locateTemplate({ templateFile: config.templateFile, domains: config.synthDomains, checkDns: config.synthCheckDns, log });
    const template = JSON.parse(fs.readFileSync(location.file, 'utf8'));
    const [sqsPort, dynamoPort, s3Port] = await Promise.all([freePort(), config.dynamoPort ?? freePort(), config.s3Port ?? freePort()]);
    const loopback = '127.0.0.1';
    const sqsEndpoint = `http://${loopback}:${sqsPort}`;
    const apiUrl = `http://${config.host === '0.0.0.0' ? loopback : config.host}:${config.port}`;
    const model = new LocalStackModel(template, location, { sqs: sqsEndpoint, apiUrl });
    log(`[template] ${location.file} (stack ${model.stackName})`);

    // The stand-ins hold every mail and check no credentials: loopback only.
    const [dynamo, s3] = await Promise.all([
      startDynamoDbLocal({ host: loopback, port: dynamoPort, dataDir: path.join(config.dataDir, 'dynamodb') }, log),
      startS3Local({ host: loopback, port: s3Port, directory: path.join(config.dataDir, 's3'), bucket: model.bucketName(model.resources('AWS::S3::Bucket')[0]?.[0] ?? 'none') }, log),
    ]);
    stops.push(() => dynamo.stop(), () => s3.stop());
    const tables = await createTables(model, new DynamoDBClient(standInSettings(dynamo.endpoint)), log);
    const buckets = await createBuckets(model, new S3Client({ forcePathStyle: true, ...standInSettings(s3.endpoint) }));

    // IAM: every call a function makes is checked against the policies the template gives its role (local/aws/iam).
    const gate = createIamGate({
      template,
      region: model.region,
      accountId: model.account,
      resolve: (id, attribute) => String(attribute ? model.getAtt(id, attribute) : model.ref(id)),
    });
    const proxy = await startIamProxy({ dynamodbEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint, gate, host: loopback, upstreamS3AccessKeyId: 'S3RVER', log });
    stops.push(() => proxy.close());
    // Stops run in reverse: this one after every part started later, the custom resources' Delete among them.
    const evidenceFile = config.iamEvidenceFile;
    if (evidenceFile) stops.push(() => writeEvidence(evidenceFile, gate.snapshot()));
    const authorize = iamCheck(gate, log);

    const sqs = LocalSqs.fromTemplate(model, (accessKeyId, action, resource) => authorize(accessKeyId, action, resource));
    await sqs.listen(loopback, sqsPort);
    stops.push(() => sqs.close());

    const outputs = Object.fromEntries(Object.entries(template.Outputs ?? {}).map(([key, output]) => [key, model.localValue((output as { Value: unknown }).Value)]));
    const controlPlane = await startControlPlane({
      host: loopback,
      region: model.region,
      accountId: model.account,
      stacks: { [model.stackName]: outputs },
      usagePlans: model.resources('AWS::ApiGateway::UsagePlan').map(([id, r]) => {
        const p = model.resolve(r.Properties ?? {}) as Record<string, AwsJson>;
        return {
          id: String(model.ref(id)),
          name: String(p.UsagePlanName ?? id),
          description: p.Description,
          apiStages: (p.ApiStages ?? []).map((s: { ApiId: string; Stage: string }) => ({ apiId: String(s.ApiId), stage: String(s.Stage) })),
          throttle: p.Throttle ? { burstLimit: p.Throttle.BurstLimit, rateLimit: p.Throttle.RateLimit } : undefined,
          quota: p.Quota ? { limit: Number(p.Quota.Limit), offset: p.Quota.Offset, period: p.Quota.Period } : undefined,
        };
      }),
      ruleSets: model.resources('AWS::SES::ReceiptRuleSet').map(([id]) => String(model.ref(id))),
      kmsKeys: model.resources('AWS::KMS::Key').map(([id]) => String(model.ref(id))),
      authorize: (call) => authorize(call.accessKeyId, call.action, call.resource),
    });
    stops.push(() => controlPlane.close());
    const endpoints = { dynamodb: dynamo.endpoint, s3: s3.endpoint, sqs: sqsEndpoint, controlPlane: controlPlane.endpoint };
    // This process calls the services as the operator (the CLI's path for seeded keys).
    setProcessEnv(operatorEnv(endpoints, model.region));

    const serviceEndpoints: ServiceEndpoints = {
      dynamodb: proxy.dynamodbEndpoint!,
      s3: proxy.s3Endpoint!,
      sqs: sqsEndpoint,
      others: { kms: controlPlane.endpoint, ses: controlPlane.endpoint, cloudformation: controlPlane.endpoint, api_gateway: controlPlane.endpoint },
    };
    const functions = new FunctionRunner({
      model,
      endpoints: serviceEndpoints,
      log,
      internet: config.internet,
      sendToQueue: async (queueArn, body) => {
        const queue = sqs.byArn(queueArn);
        if (!queue) throw new Error(`destination ${queueArn} is not a queue of the template`);
        queue.send(body);
      },
    });
    stops.push(() => functions.stop());

    const gateway = new TemplateApiGateway({
      model,
      functions,
      host: config.host,
      port: config.port,
      authorizerCacheSeconds: config.authorizerCacheSeconds,
      log,
      keys: {
        keyByValue(value) {
          const key = controlPlane.apiKeys().find((k) => k.value === value);
          if (!key) return undefined;
          return { id: key.id, enabled: key.enabled, usagePlanIds: controlPlane.usagePlanKeys().filter((k) => k.keyId === key.id).map((k) => k.usagePlanId) };
        },
      },
    });

    // Custom resources: Create now, as CloudFormation does once their dependencies exist; a failure is the
    // stack's CREATE_FAILED.
    const customResources = await createCustomResources(model, functions, log);
    stops.push(() => deleteCustomResources(model, functions, customResources, log));

    // The API Gateway side of keys made before this start (the control plane keeps its state in memory), then the
    // seeded keys, through the CLI's own path (key record, API key, usage-plan key).
    const keys = require('./keys') as typeof import('./keys');
    await keys.restoreApiKeys(model.stackName, controlPlane);
    // A dev key on a table that had no key before this start (seeded keys beside it, as npm start makes its own).
    const fresh = (await keys.keyCount(model.stackName)) === 0;
    for (const seed of config.seedKeys) await keys.seedKey(model.stackName, seed.plan, seed.key);
    const devKey = config.printDevKey && fresh ? await keys.seedKey(model.stackName, 'dev') : undefined;
    // Kept where `npm start` keeps its own (<data folder>/dev-key, 0600), so scripts read it the same way.
    if (devKey) writeDevKeyFile(config.dataDir, devKey);

    try {
      await gateway.listen();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new ConfigError(`API port ${config.port} is already in use (another TempMail stack?); choose another with PORT=…`);
      throw error;
    }
    stops.push(() => gateway.close());

    const events = new EventSources({
      model,
      functions,
      sqs,
      tables,
      dynamoEndpoint: dynamo.endpoint,
      dynamo: new DynamoDBClient(standInSettings(dynamo.endpoint)),
      log,
      ttlIntervalMs: config.ttlIntervalMs,
      authorize: (fn, action, resource) => gate.evaluate({ functionLogicalId: fn, action, resource }),
    });
    await events.start();
    stops.push(() => events.stop());

    const mail = new TemplateMailServer({ model, functions, s3Endpoint: s3.endpoint, host: config.host, port: config.smtpPort, log });
    let smtpPort: number;
    try {
      smtpPort = await mail.listen();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new ConfigError(`SMTP port ${config.smtpPort} is already in use (another TempMail stack?); choose another with SMTP_PORT=…`);
      throw error;
    }
    stops.push(() => mail.close());

    const state: TemplateStackState = {
      pid: process.pid,
      store: 'dynamodb',
      apiUrl,
      smtpPort,
      dynamodb: dynamo.endpoint,
      s3: s3.endpoint,
      kind: TEMPLATE_KIND,
      stackName: model.stackName,
      templateFile: location.file,
      endpoints,
      region: model.region,
      outputs,
    };
    fs.writeFileSync(stateFile(config.dataDir), JSON.stringify(state, null, 2));
    stops.push(() => fs.rmSync(stateFile(config.dataDir), { force: true }));

    return { apiUrl, smtpPort, model, functions, sqs, controlPlane, gateway, gate, mail, events, tables, buckets, endpoints, devKey, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * A call by a function (its access key id says which) is evaluated against its role's policies; the operator's own
 * calls (this process seeding keys, the CLI) are not a function's and pass, as an administrator's would.
 */
function iamCheck(gate: IamGate, log: (line: string) => void) {
  return async (accessKeyId: string | undefined, action: string, resource: string): Promise<{ allowed: boolean; reason?: string }> => {
    const fn = accessKeyId ? functionForAccessKeyId(accessKeyId) : undefined;
    if (!fn || !gate.functions.includes(fn)) return { allowed: true };
    const decision = await gate.evaluate({ functionLogicalId: fn, action, resource });
    if (!decision.allowed) log(`[iam] AccessDenied: ${fn} ${action} on ${resource}: ${decision.reason}`);
    return { allowed: decision.allowed, reason: decision.reason };
  };
}
