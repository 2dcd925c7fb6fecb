/**
 * CloudFormation custom resource (through the CDK provider framework) for the account's one active SES receipt rule
 * set. Activating ours replaces whatever set is active, and deactivating sets none active, so it acts only on what
 * is ours: it activates only when told to, and it deactivates only when our set is the active one — when the stack
 * is deleted (SES refuses to delete an active set, so `cdk destroy` needs it), or when activation is turned off.
 * Another set the account has switched to is never touched.
 */
import { DescribeActiveReceiptRuleSetCommand, SESClient, SetActiveReceiptRuleSetCommand } from '@aws-sdk/client-ses';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { logger } from '../app/logger';

export interface RuleSetProperties {
  RuleSetName: string;
  /** 'true' or 'false' (CloudFormation passes properties as strings). */
  Activate: string;
}

// One client per container, made on first use. Lambda calls handler(event, context): nothing else can be passed in,
// so the client is never a parameter (a second parameter would be the context, and every SES call would throw).
let client: SESClient | undefined;
const sesClient = () => (client ??= new SESClient({}));

async function activeRuleSet(ses: SESClient): Promise<string | undefined> {
  const out = await ses.send(new DescribeActiveReceiptRuleSetCommand({}));
  return out.Metadata?.Name;
}

async function deactivateIfOurs(ses: SESClient, name: string): Promise<void> {
  const active = await activeRuleSet(ses);
  if (active === undefined) {
    logger.info('no receipt rule set is active: nothing to deactivate', { ruleSet: name });
    return;
  }
  if (active !== name) {
    logger.info('another receipt rule set is active: left alone', { ruleSet: name, active });
    return;
  }
  // Called without a name, SES deactivates: no rule set is active afterwards.
  await ses.send(new SetActiveReceiptRuleSetCommand({}));
  logger.info('receipt rule set deactivated', { ruleSet: name });
}

export async function handler(event: CloudFormationCustomResourceEvent): Promise<{ PhysicalResourceId: string }> {
  const ses = sesClient();
  const props = event.ResourceProperties as unknown as RuleSetProperties;
  const name = props.RuleSetName;
  const activate = props.Activate === 'true';
  if (event.RequestType === 'Delete') {
    await deactivateIfOurs(ses, name);
  } else if (activate) {
    await ses.send(new SetActiveReceiptRuleSetCommand({ RuleSetName: name }));
    logger.info('receipt rule set activated', { ruleSet: name });
  } else if (event.RequestType === 'Update' && (event.OldResourceProperties as unknown as RuleSetProperties).Activate === 'true') {
    // Activation turned off: undo ours, but an operator's switch to another set stands.
    await deactivateIfOurs(ses, name);
  }
  return { PhysicalResourceId: name };
}
