/**
 * cdk-nag AwsSolutions findings we accept, each with its reason, stated once. The constructs acknowledge a finding
 * on the narrowest construct it applies to (cdk-nag 3 uses CDK's own Validations acknowledgements), so a customer
 * embedding TempMailService in a nag-checked app inherits the same reasoned acknowledgements, and a new finding of
 * the same rule elsewhere still fails.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export const NAG_REASONS = {
  'AwsSolutions-APIG2':
    'Each handler validates its request with zod and answers 400 in the API error format naming the field; an API Gateway request validator would answer in its own format first.',
  'AwsSolutions-APIG3':
    'WAF is an account-level choice with its own monthly cost; every key is throttled by its usage plan. A customer can associate a WebACL with the stage.',
  'AwsSolutions-COG4':
    'The API authenticates API keys with a Lambda REQUEST authorizer, as the API specification requires (X-API-Key); there are no Cognito users.',
  'AwsSolutions-APIG4':
    'Deliberately open: the 405 mock methods return only the error body and touch no backend, and GET /v1/openapi.json serves the public API description.',
  'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
    'The AWS managed basic execution role only lets a function write its own CloudWatch log streams.',
  'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]':
    'API Gateway needs this account-level role to write the access and execution logs; the managed policy only writes logs.',
  'AwsSolutions-IAM5[bucket objects]':
    'Object actions (only those the route table lists for the function) apply to keys in our one mail bucket; keys are per inbox and message ids generated at run time, so they cannot be named in advance.',
  'AwsSolutions-IAM5[Resource::*]':
    'ses:SetActiveReceiptRuleSet and ses:DescribeActiveReceiptRuleSet support no resource-level permission (the IAM service authorization reference lists no resource type for them).',
  'AwsSolutions-IAM5[provider invoke]':
    "The CDK provider framework's function may invoke our rule-set handler's versions (function ARN:*); the wildcard is the version qualifier of that one function.",
  'AwsSolutions-SNS2':
    'The alarm topic carries only alarm names and states, no mail or keys; CloudWatch cannot publish to a topic under the AWS managed SNS key, and a customer managed key would cost more than the topic.',
  'AwsSolutions-L1':
    "The runtime is pinned to Node.js 22 on purpose (the team decision: a runtime upgrade is a reviewed change, tested with the bundles); nodejs22.x is supported by Lambda until April 2027. The CDK provider framework's function runs the runtime the pinned aws-cdk-lib chooses.",
  'AwsSolutions-SQS3':
    "This queue is the ingest function's on-failure destination, i.e. it is the dead-letter queue; a dead-letter queue for it would add nothing.",
  'AwsSolutions-SQS3[webhook dead letters]':
    'This queue is the dead-letter queue of the webhook delivery queue (and the dispatcher stream\'s on-failure destination); a dead-letter queue for it would add nothing.',
  'AwsSolutions-SQS3[cleanup dead letters]':
    "This queue is the inbox cleanup stream's on-failure destination, i.e. it is the dead-letter queue; a dead-letter queue for it would add nothing.",
} as const;

export type NagRule = keyof typeof NAG_REASONS;

/** Every acknowledgement made, for the test that checks each carries a reason. */
export const NAG_ACKNOWLEDGEMENTS: { path: string; id: string; reason: string }[] = [];

/**
 * Acknowledges `rule` on `scope` and everything under it. `findingId` replaces the rule's own id where the finding
 * names a resource only known at synth (the bucket's logical id).
 */
export function acknowledgeNag(scope: IConstruct, rule: NagRule, findingId?: string): void {
  const ruleId = findingId ?? rule;
  const ack = { id: `AwsSolutions::${ruleId}`, reason: NAG_REASONS[rule] };
  Validations.of(scope).acknowledge(ack);
  NAG_ACKNOWLEDGEMENTS.push({ path: scope.node.path, ...ack });
}
