/**
 * Mail ingest in the template: the SES receipt rule and who may write and invoke, the region and domain checks,
 * alarms and dead letters, the rule-set resource, and DNS with a hosted zone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { createApp, STACK_NAME } from '../../../lib/app';
import { DEAD_LETTER_RETENTION_DAYS, SES_RECEIVING_REGIONS } from '../../../lib/mail-ingest';
import type { Json } from '../../support/json';
import { context, domains, ourFunctions, template, zoned, type Resource } from './fixture';

export function mailIngestTests(): void {
  describe('mail ingest', () => {
    it('receives mail with a scanning SES rule: S3 first, then the ingest Lambda as an Event', () => {
      template.hasResourceProperties('AWS::SES::ReceiptRule', {
        Rule: Match.objectLike({
          Enabled: true,
          ScanEnabled: true,
          Recipients: domains,
          Actions: [{ S3Action: Match.objectLike({ ObjectKeyPrefix: 'inbound/' }) }, { LambdaAction: Match.objectLike({ InvocationType: 'Event' }) }],
        }),
      });
      template.resourceCountIs('AWS::SES::EmailIdentity', 3);
      for (const d of domains) template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: d });
    });

    it('lets SES write raw mail only with aws:SourceAccount and aws:SourceArn of this rule set', () => {
      const policies = Object.values(template.findResources('AWS::S3::BucketPolicy') as Record<string, Resource>);
      const sesStatements = policies
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, Json>[])
        .filter((s) => s.Principal?.Service === 'ses.amazonaws.com');
      expect(sesStatements).toHaveLength(1);
      expect(sesStatements[0].Action).toBe('s3:PutObject');
      expect(sesStatements[0].Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
      expect(JSON.stringify(sesStatements[0].Condition.ArnLike['aws:SourceArn'])).toContain(':receipt-rule-set/TempMail-receipt:receipt-rule/*');
      expect(JSON.stringify(sesStatements[0].Resource)).toContain('/inbound/*');
    });

    it('lets SES invoke ingest only for a rule of this rule set (aws:SourceArn) and this account', () => {
      const permissions = Object.values(template.findResources('AWS::Lambda::Permission') as Record<string, Resource>)
        .map((r) => r.Properties)
        .filter((p) => p.Principal === 'ses.amazonaws.com');
      expect(permissions).toHaveLength(1);
      expect(permissions[0].SourceAccount).toEqual({ Ref: 'AWS::AccountId' });
      expect(JSON.stringify(permissions[0].SourceArn)).toContain(':receipt-rule-set/TempMail-receipt:receipt-rule/*');
      const ingestArn = { 'Fn::GetAtt': [ourFunctions().Ingest.logicalId, 'Arn'] };
      expect(permissions[0].FunctionName).toEqual(ingestArn);
    });

    it('fails a deployment outside the regions where SES receives mail, before anything is created', () => {
      const rules = template.toJSON().Rules as Record<string, { Assertions: { Assert: unknown; AssertDescription: string }[] }>;
      const region = Object.entries(rules).find(([id]) => id.includes('SesReceivingRegion'))![1];
      expect(region.Assertions[0].Assert).toEqual({ 'Fn::Contains': [[...SES_RECEIVING_REGIONS], { Ref: 'AWS::Region' }] });
      expect(region.Assertions[0].AssertDescription).toMatch(/SES does not receive mail in this region/);
      // Known at synth time, the region is refused as the context is: one error annotation, no stack trace, nothing built.
      const { stack } = createApp({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-r-')) }, { region: 'ap-south-1', account: '123456789012' });
      Annotations.fromStack(stack).hasError(`/${STACK_NAME}`, Match.stringLikeRegexp('^SES does not receive mail in ap-south-1; deploy to one of us-east-1, '));
      expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toHaveLength(1);
      expect(Template.fromStack(stack).findResources('AWS::Lambda::Function')).toEqual({});
    });

    it('refuses the example domains cdk.json ships with, naming the setting, as an error annotation on an empty stack', () => {
      const placeholders = { ...context, 'tempmail:domains': ['mail.example.com', 'inbox.example.com', 'box.example.com'], 'aws:cdk:bundling-stacks': [] };
      const { stack } = createApp({ context: placeholders, outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-x-')) });
      Annotations.fromStack(stack).hasError(`/${STACK_NAME}`, Match.stringLikeRegexp('tempmail:domains still lists example domains'));
      expect(Template.fromStack(stack).findResources('AWS::Lambda::Function')).toEqual({});
    });

    it('notifies an SNS topic from every alarm (in alarm and back to OK), with the e-mail subscription from context', () => {
      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).map((r) => r.Properties);
      expect(alarms).toHaveLength(6); // API 5xx, ingest errors, ingest dead letters (depth, age), webhook dead letters, cleanup dead letters
      const topic = Object.keys(template.findResources('AWS::SNS::Topic'));
      expect(topic).toHaveLength(1);
      for (const alarm of alarms) {
        expect(alarm.AlarmActions).toEqual([{ Ref: topic[0] }]);
        expect(alarm.OKActions).toEqual([{ Ref: topic[0] }]);
      }
      template.resourceCountIs('AWS::SNS::Subscription', 0);
      zoned.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@tempmail.test' });
      // Half the replay window gone: a second notice.
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateAgeOfOldestMessage', Threshold: (DEAD_LETTER_RETENTION_DAYS / 2) * 86_400 });
      template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: DEAD_LETTER_RETENTION_DAYS * 86_400 });
      expect(DEAD_LETTER_RETENTION_DAYS).toBe(14); // SQS's maximum: the documented replay window
    });

    it('retries ingest twice, then sends it to an encrypted, TLS-only dead-letter queue watched by an alarm', () => {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumRetryAttempts: 2, DestinationConfig: { OnFailure: { Destination: Match.anyValue() } } });
      template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: Match.objectLike({ Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) }),
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateNumberOfMessagesVisible', Namespace: 'AWS/SQS', Threshold: 1 });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Namespace: 'AWS/Lambda' });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: '5XXError', Namespace: 'AWS/ApiGateway' });
    });

    it('has the rule-set resource in every form (so deletion can deactivate ours), activating only when asked; no DNS without a zone', () => {
      template.hasResourceProperties('Custom::ReceiptRuleSetActivation', { RuleSetName: 'TempMail-receipt', Activate: 'false' });
      zoned.hasResourceProperties('Custom::ReceiptRuleSetActivation', { RuleSetName: 'TempMail-receipt', Activate: 'true' });
      template.resourceCountIs('Custom::AWS', 0);
      template.resourceCountIs('AWS::Route53::RecordSet', 0);
      // Deleted before the rule set: it depends on the set's rule.
      const [activation] = Object.values(template.findResources('Custom::ReceiptRuleSetActivation') as Record<string, { DependsOn: string[] }>);
      const rule = Object.keys(template.findResources('AWS::SES::ReceiptRule'))[0];
      expect(activation.DependsOn).toContain(rule);
    });

    it('with a hosted zone: three DKIM CNAMEs and an MX per domain', () => {
      zoned.resourceCountIs('AWS::Route53::RecordSet', domains.length * 4);
      for (const d of domains) {
        zoned.hasResourceProperties('AWS::Route53::RecordSet', {
          Type: 'MX',
          Name: `${d}.`,
          HostedZoneId: 'Z0123456789ABCDEFGHIJ',
          ResourceRecords: [{ 'Fn::Join': ['', ['10 inbound-smtp.', { Ref: 'AWS::Region' }, '.amazonaws.com']] }],
        });
      }
      // DKIM names are SES's own fully qualified token names, used as they are.
      const cnames = Object.values(zoned.findResources('AWS::Route53::RecordSet', { Properties: { Type: 'CNAME' } }) as Record<string, Resource>);
      expect(cnames).toHaveLength(domains.length * 3);
      for (const cname of cnames) {
        expect(cname.Properties.Name).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/Identity/), expect.stringMatching(/^DkimDNSTokenName[123]$/)] });
        expect(cname.Properties.ResourceRecords).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/Identity/), expect.stringMatching(/^DkimDNSTokenValue[123]$/)] }]);
      }
    });
  });
}
