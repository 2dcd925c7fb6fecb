/**
 * The stack under test, synthesized once for all of test/infra/stack.test.ts's concerns (a bundled synth takes
 * minutes on a loaded machine): the template with bundling, the same stack with a hosted zone and rule-set
 * activation (`zoned`, bundling skipped), cdk-nag's report, and what reads them: our functions and their grants.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../../lib/app';
import { LAMBDA_RUNTIME } from '../../../lib/bundling';
import type { Json } from '../../support/json';

export const domains = ['mail.tempmail.test', 'inbox.tempmail.test', 'box.tempmail.test'];
export const context = { 'tempmail:domains': domains, 'tempmail:activateReceiptRuleSet': false };
export const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-'));
export let template: Template;
/** The same stack with a hosted zone and rule-set activation; bundling skipped since only DNS and SES are checked. */
export let zoned: Template;
/** The zoned template's functions, by the same ids. */
export function zonedFns(): Record<string, Record<string, Json>> {
  const found: Record<string, Record<string, Json>> = {};
  for (const [logicalId, r] of Object.entries(zoned.findResources('AWS::Lambda::Function') as Record<string, Resource>)) {
    const id = /^TempMail(?:Api|Mail)?(\w+?)[0-9A-F]{8}$/.exec(logicalId)?.[1];
    if (id && r.Properties.Runtime === LAMBDA_RUNTIME.name) found[id] = r.Properties;
  }
  return found;
}
export let report: { pluginReports: { pluginName: string; conclusion: string; violations: unknown[]; suppressedViolations: { ruleName: string; reason: string }[] }[] };

/** Synthesizes both stacks (stack.test.ts runs it before all its tests). */
export function synthesize(): void {
  const { app, stack } = createApp({ context, outdir });
  app.synth(); // throws if Json cdk-nag finding is unacknowledged
  template = Template.fromStack(stack);
  report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8'));
  const zonedApp = createApp({
    outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tempmail-cdk-zoned-')),
    context: {
      ...context,
      'tempmail:hostedZoneId': 'Z0123456789ABCDEFGHIJ',
      'tempmail:hostedZoneName': 'tempmail.test',
      'tempmail:alarmEmail': 'ops@tempmail.test',
      'tempmail:activateReceiptRuleSet': 'true',
      'aws:cdk:bundling-stacks': [],
      'tempmail:ingestConcurrency': '3',
      'tempmail:authorizerConcurrency': '0',
    },
  });
  zonedApp.app.synth();
  zoned = Template.fromStack(zonedApp.stack);
}

/** Removes the synthesized output. */
export const removeOutput = (): void => fs.rmSync(outdir, { recursive: true, force: true });

export type Resource = { Properties: Record<string, Json> };

/** Our functions (the route handlers, authorizer and ingest), by construct id, e.g. `GetInboxFunction`. */
export function ourFunctions(): Record<string, { logicalId: string; props: Record<string, Json> }> {
  const found: Record<string, { logicalId: string; props: Record<string, Json> }> = {};
  for (const [logicalId, r] of Object.entries(template.findResources('AWS::Lambda::Function') as Record<string, Resource>)) {
    if (r.Properties.Runtime !== LAMBDA_RUNTIME.name) continue;
    const id = /^TempMail(?:Api|Mail)?(\w+?)[0-9A-F]{8}$/.exec(logicalId)?.[1];
    if (id) found[id] = { logicalId, props: r.Properties };
  }
  return found;
}

/** Every IAM action granted to a function's role, apart from X-Ray and logs. */
export function actionsOf(fn: { props: Record<string, Json> }): string[] {
  const role = fn.props.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
    .sort();
}

/** Every statement of a function's role policies. */
export function statementsOf(fn: { props: Record<string, Json> }): Record<string, Json>[] {
  const role = fn.props.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

/** A grant as "action resource", the resource named by what it is: `table`, `index inboxes_by_account`, `bucket inboxes/*`… */
export function grantsOf(fn: { props: Record<string, Json> }): string[] {
  const named = (resource: unknown, condition: unknown): string => {
    const s = JSON.stringify(resource);
    if (s === '"*"') return '*';
    if (s.includes('/index/')) return `index ${s.split('/index/')[1].replace(/\W+$/, '')}`;
    // The bucket's ARN joined with a key pattern: `inboxes/*`, `inbound/*`, or one kind of key (`inboxes/*/*/checks-v1.json`).
    const pattern = /"\/((?:inboxes|inbound)\/\*[^"]*)"/.exec(s);
    if (pattern) return `bucket ${pattern[1]}`;
    const [, id, attribute] = /"Fn::GetAtt":\["TempMail(\w+?)[0-9A-F]{8}","(\w+)"\]/.exec(s) ?? [];
    const names: Record<string, string> = {
      StorageTable: attribute === 'StreamArn' ? 'stream' : 'table', StorageMail: 'bucket', WebhooksSecretsKey: 'webhook key',
      WebhooksDeliveries: 'deliveries', WebhooksDeliveryDeadLetters: 'delivery dead letters', DeadLetters: 'ingest dead letters',
      CleanupDeadLetters: 'cleanup dead letters',
    };
    const name = (id && names[id]) ?? s;
    return condition ? `${name} if ${JSON.stringify(condition)}` : name;
  };
  return statementsOf(fn)
    .flatMap((st) => [st.Action].flat().flatMap((a: string) => [st.Resource].flat().map((r: unknown) => `${a} ${named(r, st.Condition)}`)))
    .sort();
}
