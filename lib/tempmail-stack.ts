/** The stack a customer deploys with `cdk deploy`, configured from context (cdk.json or -c). */
import { Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { TempMailService } from './tempmail-service';

export class TempMailStack extends Stack {
  readonly service: TempMailService;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const context = (key: string) => this.node.tryGetContext(`tempmail:${key}`);
    const domains = context('domains');
    if (!Array.isArray(domains) || domains.length !== 3) throw new Error('context tempmail:domains must list three domains');
    const zoneId = context('hostedZoneId');
    const zoneName = context('hostedZoneName');
    this.service = new TempMailService(this, 'TempMail', {
      domains,
      hostedZone: zoneId && zoneName ? { id: zoneId, name: zoneName } : undefined,
      activateReceiptRuleSet: context('activateReceiptRuleSet') === true || context('activateReceiptRuleSet') === 'true',
      tableDeletionProtection: context('tableDeletionProtection') !== false && context('tableDeletionProtection') !== 'false',
    });
  }
}
