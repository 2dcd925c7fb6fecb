/**
 * The stack output names the admin CLI (cli/aws-admin.ts) reads. Here, not in the construct, so the CLI does not
 * load aws-cdk-lib to learn them.
 */
import type { PlanName } from '../lambdas/core/plans';

export const OUTPUTS = {
  apiUrl: 'ApiUrl',
  restApiId: 'RestApiId',
  tableName: 'TableName',
  bucketName: 'BucketName',
  deadLetterQueueUrl: 'DeadLetterQueueUrl',
  ingestFunctionName: 'IngestFunctionName',
  alarmTopicArn: 'AlarmTopicArn',
  usagePlanId: (plan: PlanName) => `UsagePlanId${plan[0].toUpperCase()}${plan.slice(1)}`,
} as const;
