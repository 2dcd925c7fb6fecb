/**
 * The environment that configures a Lambda bundle run in a process of its own (bench:lambdas) for the local
 * stand-ins, as CDK's environment configures it on AWS. The local stack itself passes endpoints in its config.
 */
import { DEPLOYED_STORE } from '../lambdas/layout/functions';
import { LOCAL_BUCKET, LOCAL_TABLE } from './config';

export { LOCAL_BUCKET, LOCAL_TABLE };

export function localAwsEnv(options: { dynamoEndpoint: string; s3Endpoint: string; table: string; bucket: string }): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_DYNAMODB: options.dynamoEndpoint,
    AWS_ENDPOINT_URL_S3: options.s3Endpoint,
    // s3rver predates the SDK's default CRC checksums.
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    // Lambda runs Node 22; the SDK's Node 20 end-of-support notice is noise on this machine.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // CloudWatch embedded metrics mean nothing on one machine; printed, they would drown the log.
    POWERTOOLS_METRICS_DISABLED: 'true',
    TEMPMAIL_STORE: DEPLOYED_STORE,
    TABLE_NAME: options.table,
    BUCKET_NAME: options.bucket,
  };
}
