/** The stack a customer deploys with `cdk deploy`, configured from context (cdk.json or -c). Environment-agnostic. */
import { Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { TempMailService } from './tempmail-service';

/** Context values arrive as JSON from cdk.json and as strings from `-c key=value`. */
const flag = (value: unknown, fallback: boolean): boolean => (value === undefined ? fallback : value === true || value === 'true');
const list = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',').map((d) => d.trim()).filter(Boolean) : undefined;

export class TempMailStack extends Stack {
  readonly service: TempMailService;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const context = (key: string) => this.node.tryGetContext(`tempmail:${key}`);
    const domains = list(context('domains'));
    if (!domains || domains.length !== 3) throw new Error('context tempmail:domains must list three domains');
    const placeholders = domains.filter((d) => /(^|\.)example\.(com|net|org)$/i.test(d));
    if (placeholders.length) {
      throw new Error(
        `context tempmail:domains still lists example domains (${placeholders.join(', ')}): set your own three domains in cdk.json or with -c tempmail:domains=a.example,b.example,c.example (docs/DEPLOY.md §2)`,
      );
    }
    const count = (key: string): number | undefined => (context(key) === undefined ? undefined : Number(context(key)));
    const zoneId = context('hostedZoneId');
    const zoneName = context('hostedZoneName');
    this.service = new TempMailService(this, 'TempMail', {
      domains,
      hostedZone: zoneId && zoneName ? { id: String(zoneId), name: String(zoneName) } : undefined,
      activateReceiptRuleSet: flag(context('activateReceiptRuleSet'), false),
      tableDeletionProtection: flag(context('tableDeletionProtection'), true),
      alarmEmail: context('alarmEmail') ? String(context('alarmEmail')) : undefined,
      concurrency: Object.fromEntries(
        ([['ingest', 'ingestConcurrency'], ['authorizer', 'authorizerConcurrency'], ['longPoll', 'waitConcurrency']] as const)
          .map(([field, key]) => [field, count(key)])
          .filter(([, value]) => value !== undefined),
      ),
      sesReceivingRegions: list(context('sesReceivingRegions')),
      corsOrigin: context('corsOrigin') === undefined ? undefined : String(context('corsOrigin')),
    });
  }
}
