/** cdk-nag findings we accept, each with its reason (cdk-nag 3: CDK's own Validations acknowledgements). */
import { Validations, type Stack } from 'aws-cdk-lib';

export const NAG_ACKNOWLEDGEMENTS: { id: string; reason: string }[] = [
  { id: 'AwsSolutions-APIG2', reason: 'Each handler validates its request with zod and answers in the API error format; API Gateway request validators would answer in their own format.' },
  { id: 'AwsSolutions-APIG3', reason: 'WAF is an account-level choice with its own cost; usage-plan throttling limits every key. Customers can attach a WebACL to the stage.' },
  { id: 'AwsSolutions-COG4', reason: 'The API authenticates API keys with a Lambda REQUEST authorizer, as the specification requires; there are no Cognito users.' },
  { id: 'AwsSolutions-APIG4', reason: 'The 405 mock methods and GET /v1/openapi.json are deliberately open: they return no data.' },
  { id: 'AwsSolutions-S1', reason: 'The access-log bucket is itself the target of server access logs; logging it to itself would loop.' },
  { id: 'AwsSolutions-SQS3', reason: 'This queue is the dead-letter destination of the ingest function; a dead-letter queue for it would add nothing.' },
  {
    id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: 'The AWS managed basic execution role grants only CloudWatch Logs writes for the function’s own log group.',
  },
  {
    id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    reason: 'API Gateway’s account-level logging role is the AWS managed one; it only writes logs.',
  },
  {
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::<TempMailStorageMailDBD04238.Arn>/*]',
    reason: 'Object actions (only those the route table lists for the function) apply to keys in our one mail bucket; keys are per inbox and message, so they cannot be named in advance.',
  },
];

export function acknowledgeNagFindings(stack: Stack): void {
  for (const ack of NAG_ACKNOWLEDGEMENTS) Validations.of(stack).acknowledge(ack);
}
