/**
 * The rule-set activation custom resource, with SES mocked: it touches the account's active set only when it is ours.
 * Called as Lambda calls it, handler(event, context); test/infra/receipt-rule-set-bundle.test.ts runs the deployed
 * bundle itself against the SES stand-in.
 */
import { DescribeActiveReceiptRuleSetCommand, SESClient, SetActiveReceiptRuleSetCommand } from '@aws-sdk/client-ses';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../lambdas/deploy/receipt-rule-set';
import { logger } from '../../lambdas/app/logger';

const ses = mockClient(SESClient);
/** What the function logs (to CloudWatch when deployed), kept out of the test output. */
const logged = jest.spyOn(logger, 'info').mockImplementation(() => undefined);
const OURS = 'TempMail-receipt';
const context = { functionName: 'RuleSetActivationHandler', awsRequestId: 'req', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
/** As Lambda invokes it: the context is the second argument. */
const invoke = (e: CloudFormationCustomResourceEvent) => (handler as (e: CloudFormationCustomResourceEvent, c: Context) => ReturnType<typeof handler>)(e, context);

function event(type: 'Create' | 'Update' | 'Delete', activate: boolean, oldActivate?: boolean): CloudFormationCustomResourceEvent {
  const base = {
    ServiceToken: 'arn', ResponseURL: 'https://example.invalid', StackId: 'stack', RequestId: 'r', LogicalResourceId: 'RuleSetActivation',
    ResourceType: 'Custom::ReceiptRuleSetActivation', ResourceProperties: { ServiceToken: 'arn', RuleSetName: OURS, Activate: String(activate) },
  };
  if (type === 'Create') return { ...base, RequestType: 'Create' };
  if (type === 'Update') return { ...base, RequestType: 'Update', PhysicalResourceId: OURS, OldResourceProperties: { ServiceToken: 'arn', RuleSetName: OURS, Activate: String(oldActivate) } };
  return { ...base, RequestType: 'Delete', PhysicalResourceId: OURS };
}

const activeIs = (name: string | undefined) =>
  ses.on(DescribeActiveReceiptRuleSetCommand).resolves(name ? { Metadata: { Name: name } } : {});
const setCalls = () => ses.commandCalls(SetActiveReceiptRuleSetCommand).map((c) => c.args[0].input);

beforeEach(() => {
  ses.reset();
  logged.mockClear();
  ses.on(SetActiveReceiptRuleSetCommand).resolves({});
});

describe('delete (cdk destroy, or the resource removed)', () => {
  it('leaves another active rule set alone', async () => {
    activeIs('CustomerRules');
    expect(await invoke(event('Delete', true))).toEqual({ PhysicalResourceId: OURS });
    expect(setCalls()).toEqual([]);
    expect(logged).toHaveBeenCalledWith('another receipt rule set is active: left alone', { ruleSet: OURS, active: 'CustomerRules' });
  });

  it('leaves the account with no active set alone, and says so (not that another set is active)', async () => {
    activeIs(undefined);
    await invoke(event('Delete', false));
    expect(setCalls()).toEqual([]);
    expect(logged).toHaveBeenCalledWith('no receipt rule set is active: nothing to deactivate', { ruleSet: OURS });
    expect(logged).not.toHaveBeenCalledWith('another receipt rule set is active: left alone', expect.anything());
  });

  it('deactivates ours when it is active, however it was activated (so SES lets the stack delete it)', async () => {
    for (const flag of [true, false]) {
      ses.resetHistory();
      activeIs(OURS);
      await invoke(event('Delete', flag));
      expect(setCalls()).toEqual([{}]);
    }
  });
});

describe('create and update', () => {
  it('activates ours when the flag is on', async () => {
    await invoke(event('Create', true));
    expect(setCalls()).toEqual([{ RuleSetName: OURS }]);
    expect(ses.commandCalls(DescribeActiveReceiptRuleSetCommand)).toHaveLength(0);
  });

  it('does nothing with the flag off: an operator may have activated ours, or another set, by hand', async () => {
    activeIs(OURS);
    await invoke(event('Create', false));
    await invoke(event('Update', false, false));
    expect(setCalls()).toEqual([]);
  });

  it('turning the flag off deactivates ours only while it is the active one', async () => {
    activeIs(OURS);
    await invoke(event('Update', false, true));
    expect(setCalls()).toEqual([{}]);
    ses.resetHistory();
    activeIs('CustomerRules');
    await invoke(event('Update', false, true));
    expect(setCalls()).toEqual([]);
  });
});
