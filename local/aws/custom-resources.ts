/**
 * The template's custom resources as CloudFormation runs them for `npm run start:aws` (template-runner.ts): Create
 * once their dependencies exist (a failure is the stack's CREATE_FAILED), Delete in reverse order at stop.
 */
import { randomUUID } from 'node:crypto';
import type { FunctionRunner } from './functions';
import type { LocalStackModel } from './template';

interface CreatedCustomResource {
  logicalId: string;
  physicalId: string;
  properties: Record<string, unknown>;
}

/** The function that runs a custom resource: the provider framework's user handler, or the service token's own. */
function customResourceHandler(model: LocalStackModel, functions: FunctionRunner, serviceToken: string): string {
  const fn = model.functionByArn(serviceToken);
  if (!fn) throw new Error(`custom resource service token ${serviceToken} is not a function of the template`);
  // The CDK provider framework's onEvent invokes the user's function through the Lambda API and answers
  // CloudFormation's pre-signed URL; here the user's function is invoked directly with the same event.
  const user = functions.spec(fn).environment.USER_ON_EVENT_FUNCTION_ARN;
  const userFn = user ? model.functionByArn(user) : undefined;
  return userFn ?? fn;
}

export async function createCustomResources(model: LocalStackModel, functions: FunctionRunner, log: (line: string) => void): Promise<CreatedCustomResource[]> {
  const created: CreatedCustomResource[] = [];
  const custom = Object.entries(model.template.Resources).filter(([id, r]) => (r.Type.startsWith('Custom::') || r.Type === 'AWS::CloudFormation::CustomResource') && model.included(id));
  for (const [logicalId, r] of custom) {
    const properties = model.resolve(r.Properties ?? {}) as Record<string, unknown>;
    const handler = customResourceHandler(model, functions, String(properties.ServiceToken));
    const event = customEvent(model, 'Create', logicalId, r.Type, properties);
    const outcome = await functions.invoke(handler, event);
    if (!outcome.ok) throw new Error(`custom resource ${logicalId} (${r.Type}): CREATE_FAILED: ${outcome.errorType}: ${outcome.errorMessage}`);
    const answer = (outcome.payload ?? {}) as { PhysicalResourceId?: string; Data?: Record<string, unknown> };
    const physicalId = answer.PhysicalResourceId ?? event.RequestId;
    model.customPhysicalIds.set(logicalId, physicalId);
    if (answer.Data) model.customData.set(logicalId, answer.Data);
    created.push({ logicalId, physicalId, properties });
    log(`[cfn] ${logicalId} (${r.Type}): CREATE_COMPLETE (${physicalId})`);
  }
  return created;
}

export async function deleteCustomResources(model: LocalStackModel, functions: FunctionRunner, created: CreatedCustomResource[], log: (line: string) => void): Promise<void> {
  for (const resource of created.reverse()) {
    const handler = customResourceHandler(model, functions, String(resource.properties.ServiceToken));
    const event = { ...customEvent(model, 'Delete', resource.logicalId, model.resource(resource.logicalId).Type, resource.properties), PhysicalResourceId: resource.physicalId };
    const outcome = await functions.invoke(handler, event);
    log(`[cfn] ${resource.logicalId}: ${outcome.ok ? 'DELETE_COMPLETE' : `DELETE_FAILED: ${outcome.errorType}: ${outcome.errorMessage}`}`);
  }
}

function customEvent(model: LocalStackModel, requestType: 'Create' | 'Delete', logicalId: string, type: string, properties: Record<string, unknown>) {
  return {
    RequestType: requestType,
    ServiceToken: String(properties.ServiceToken),
    ResponseURL: 'http://127.0.0.1/unused-by-the-provider-framework-path',
    StackId: String(model.ref('AWS::StackId')),
    RequestId: randomUUID(),
    LogicalResourceId: logicalId,
    ResourceType: type,
    ResourceProperties: properties,
  };
}
