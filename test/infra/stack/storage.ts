/**
 * Storage in the template (the table and the bucket), the outputs the admin CLI reads, and cdk-nag.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { NAG_ACKNOWLEDGEMENTS, NAG_REASONS } from '../../../lib/nag';
import { OBJECT_EXPIRY_DAYS } from '../../../lib/storage';
import { OUTPUTS } from '../../../lib/tempmail-service';
import { BASE_PLANS, PAID_PLANS, PLAN_NAMES } from '../../../lambdas/core/plans';
import { report, template, type Resource } from './fixture';

export function storageTests(): void {
  describe('storage', () => {
    it('keeps data in one on-demand table with TTL, PITR and deletion protection, retained on stack deletion', () => {
      template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
      template.hasResource('AWS::DynamoDB::GlobalTable', {
        DeletionPolicy: 'Retain',
        Properties: Match.objectLike({
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
          TimeToLiveSpecification: { AttributeName: 'expires_at_epoch', Enabled: true },
          Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true }, DeletionProtectionEnabled: true })],
        }),
      });
    });

    it('keeps mail in a private, encrypted, TLS-only bucket that expires it after the longest plan ttl plus a margin', () => {
      const longestTtlDays = Math.max(...PLAN_NAMES.map((p) => BASE_PLANS[p].max_ttl_seconds)) / 86_400;
      expect(OBJECT_EXPIRY_DAYS).toBeGreaterThan(longestTtlDays);
      expect(OBJECT_EXPIRY_DAYS).toBeLessThanOrEqual(longestTtlDays + 3);
      template.hasResourceProperties('AWS::S3::Bucket', {
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'mail/' }),
        // The viewer's Raw tab follows the API's redirect to a pre-signed URL, cross-origin: reads only.
        CorsConfiguration: { CorsRules: [{ AllowedMethods: ['GET', 'HEAD'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], MaxAge: 3_600 }] },
        LifecycleConfiguration: {
          Rules: Match.arrayWith([
            Match.objectLike({ Prefix: 'inbound/', ExpirationInDays: OBJECT_EXPIRY_DAYS, Status: 'Enabled' }),
            Match.objectLike({ Prefix: 'inboxes/', ExpirationInDays: OBJECT_EXPIRY_DAYS, Status: 'Enabled' }),
          ]),
        },
      });
      for (const bucket of Object.values(template.findResources('AWS::S3::BucketPolicy') as Record<string, Resource>)) {
        expect(bucket.Properties.PolicyDocument.Statement).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
      }
    });
  });

  it('outputs what the admin CLI reads', () => {
    const outputs = Object.keys(template.toJSON().Outputs);
    expect(outputs).toEqual(
      expect.arrayContaining([OUTPUTS.apiUrl, OUTPUTS.restApiId, OUTPUTS.tableName, OUTPUTS.bucketName, OUTPUTS.deadLetterQueueUrl, OUTPUTS.ingestFunctionName, ...PAID_PLANS.map(OUTPUTS.usagePlanId)]),
    );
    expect(OUTPUTS.usagePlanId('dev')).toBe('UsagePlanIdDev');
  });

  it('passes cdk-nag AwsSolutions with no unacknowledged finding, each acknowledgement with a reason', () => {
    const nag = report.pluginReports.find((r) => r.pluginName === 'AwsSolutions')!;
    expect(nag.violations).toEqual([]);
    expect(nag.conclusion).toBe('success');
    expect(nag.suppressedViolations.length).toBeGreaterThan(0);
    const reasons = new Set(Object.values(NAG_REASONS) as string[]);
    for (const suppressed of nag.suppressedViolations) expect(reasons.has(suppressed.reason)).toBe(true);
    for (const reason of reasons) expect(reason.length).toBeGreaterThan(60);
    // Every acknowledgement sits on one construct, never on the whole stack or app.
    for (const ack of NAG_ACKNOWLEDGEMENTS) expect(ack.path.split('/').length).toBeGreaterThanOrEqual(2);
  });
}
