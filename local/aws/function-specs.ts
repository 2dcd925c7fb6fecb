/**
 * Each AWS::Lambda::Function of the template as `npm run start:aws` runs it (functions.ts): its asset, handler,
 * runtime, Timeout, MemorySize, resolved Environment, reserved concurrency and asynchronous invocation settings.
 */
import type { AwsJson } from './cfn-json';
import type { LocalStackModel } from './template';

/** Lambda's defaults when the template states none. */
const DEFAULT_TIMEOUT_SECONDS = 3;
const DEFAULT_MEMORY_MB = 128;

export interface FunctionSpec {
  logicalId: string;
  name: string;
  arn: string;
  handler: string;
  runtime: string;
  timeoutSeconds: number;
  memoryMb: number;
  codeDir: string;
  /** The template's Environment.Variables, resolved. */
  environment: Record<string, string>;
  reservedConcurrency?: number;
  /** From AWS::Lambda::EventInvokeConfig. */
  async: { maxRetries: number; maxEventAgeSeconds: number; onFailure?: string };
}

export function functionSpecs(model: LocalStackModel): FunctionSpec[] {
  const invokeConfigs = model.resources('AWS::Lambda::EventInvokeConfig').map(([, r]) => model.resolve(r.Properties) as Record<string, AwsJson>);
  return model.resources('AWS::Lambda::Function').map(([logicalId, r]) => {
    const p = (r.Properties ?? {}) as Record<string, unknown>;
    const codeDir = model.assetPath(logicalId);
    if (!codeDir) throw new Error(`function ${logicalId} has no asset in the cloud assembly (inline or image code is not supported locally)`);
    const variables = ((p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<string, unknown>;
    const environment = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, model.localValue(v)]));
    const name = model.functionName(logicalId);
    const config = invokeConfigs.find((c) => c.FunctionName === name || model.functionByArn(String(c.FunctionName)) === logicalId);
    return {
      logicalId,
      name,
      arn: model.functionArn(logicalId),
      handler: String(p.Handler ?? 'index.handler'),
      runtime: String(p.Runtime ?? 'nodejs22.x'),
      timeoutSeconds: Number(p.Timeout ?? DEFAULT_TIMEOUT_SECONDS),
      memoryMb: Number(p.MemorySize ?? DEFAULT_MEMORY_MB),
      codeDir,
      environment,
      reservedConcurrency: p.ReservedConcurrentExecutions === undefined ? undefined : Number(model.resolve(p.ReservedConcurrentExecutions)),
      async: {
        maxRetries: config?.MaximumRetryAttempts ?? 2,
        maxEventAgeSeconds: config?.MaximumEventAgeInSeconds ?? 21_600,
        onFailure: config?.DestinationConfig?.OnFailure?.Destination,
      },
    };
  });
}
