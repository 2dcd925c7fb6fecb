/**
 * The custom resource as CloudFormation's provider runs it: its bundle from cdk.out, its Handler resolved and called
 * as Lambda calls it (handler(event, context)), the template's Environment, SES pointed at the control-plane
 * stand-in, and each SES call allowed only if the function's synthesized role policy grants it.
 */
import { SESClient, SetActiveReceiptRuleSetCommand } from '@aws-sdk/client-ses';
import { STACK_NAME } from '../../../lib/app';
import { startControlPlane, type ControlPlane } from '../../../local/aws/control-plane';
import { functionArtifact, invokeArtifact, type FunctionArtifact } from '../../support/lambda-artifact';
import { outdir, ourFunctions, statementsOf, template, type Resource } from './fixture';

export function receiptRuleSetTests(): void {
  describe('the receipt-rule-set custom resource, as deployed', () => {
    const CUSTOMER_SET = 'CustomerRules';
    let cp: ControlPlane;
    let fn: FunctionArtifact;
    let ruleSetName: string;
    let properties: Record<string, unknown>;

    beforeAll(async () => {
      fn = functionArtifact(outdir, STACK_NAME, /RuleSetActivationHandler[0-9A-F]{8}$/);
      const [activation] = Object.values(template.findResources('Custom::ReceiptRuleSetActivation') as Record<string, Resource>);
      properties = activation.Properties;
      ruleSetName = (Object.values(template.findResources('AWS::SES::ReceiptRuleSet') as Record<string, Resource>)[0]).Properties.RuleSetName;
      const statements = statementsOf({ props: ourFunctions().RuleSetActivationHandler.props }).filter((s) => s.Effect === 'Allow');
      const list = (v: string | string[]) => (Array.isArray(v) ? v : [v]);
      cp = await startControlPlane({
        ruleSets: [ruleSetName, CUSTOMER_SET],
        activeRuleSet: CUSTOMER_SET,
        authorize: (call) =>
          statements.some((s) => list(s.Action).includes(call.action) && list(s.Resource).some((r) => r === '*' || r === call.resource))
            ? { allowed: true }
            : { allowed: false, reason: 'no statement of the function’s role policy allows it' },
      });
    });
    afterAll(() => cp?.close());

    const event = (type: 'Create' | 'Update' | 'Delete', activate: boolean, oldActivate?: boolean) => {
      const base = {
        RequestType: type,
        ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:provider',
        ResponseURL: 'https://cloudformation-custom-resource-response.invalid/',
        StackId: `arn:aws:cloudformation:us-east-1:000000000000:stack/${STACK_NAME}/1`,
        RequestId: `request-${type}`,
        LogicalResourceId: 'RuleSetActivation',
        ResourceType: 'Custom::ReceiptRuleSetActivation',
        ResourceProperties: { ...properties, ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:provider', Activate: String(activate) },
      };
      return type === 'Create'
        ? base
        : { ...base, PhysicalResourceId: ruleSetName, ...(type === 'Update' ? { OldResourceProperties: { ...base.ResourceProperties, Activate: String(oldActivate) } } : {}) };
    };
    const run = async (e: ReturnType<typeof event>) => {
      const outcome = await invokeArtifact(fn, e, {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'ASIARULESETROLE',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_SESSION_TOKEN: 'local',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...cp.endpointEnv(),
      });
      expect(outcome).toEqual({ result: { PhysicalResourceId: ruleSetName }, logs: expect.any(String) });
      return outcome.logs;
    };

    it('names the custom resource’s properties the bundle reads', () => {
      expect(fn.handler).toBe('index.handler');
      expect(properties).toEqual(expect.objectContaining({ RuleSetName: ruleSetName, Activate: 'false' }));
    });

    it('Create with activation, Update toggling it, Delete: each ends with the expected active set, none fails', async () => {
      const logs = await run(event('Create', true));
      expect(cp.activeRuleSet()).toBe(ruleSetName);
      // The project's logger (JSON lines), not console.log.
      expect(JSON.parse(logs.trim().split('\n').pop()!)).toEqual(expect.objectContaining({ level: 'INFO', message: 'receipt rule set activated', ruleSet: ruleSetName }));
      await run(event('Update', false, true));
      expect(cp.activeRuleSet()).toBeUndefined();
      await run(event('Update', true, false));
      expect(cp.activeRuleSet()).toBe(ruleSetName);
      await run(event('Delete', true));
      expect(cp.activeRuleSet()).toBeUndefined();
    }, 120_000);

    it('leaves a set the account switched to alone, on Update and on Delete (cdk destroy)', async () => {
      await run(event('Create', false));
      expect(cp.activeRuleSet()).toBeUndefined();
      const ses = new SESClient({ region: 'us-east-1', endpoint: cp.endpoint, credentials: { accessKeyId: 'operator', secretAccessKey: 'x' } });
      await ses.send(new SetActiveReceiptRuleSetCommand({ RuleSetName: CUSTOMER_SET }));
      await run(event('Update', false, true));
      await run(event('Delete', false));
      expect(cp.activeRuleSet()).toBe(CUSTOMER_SET);
      // Every call the function made was one its role allows.
      expect(cp.calls().filter((c) => c.accessKeyId === 'ASIARULESETROLE' && !c.allowed)).toEqual([]);
      expect(cp.calls().filter((c) => c.accessKeyId === 'ASIARULESETROLE').length).toBeGreaterThan(0);
    }, 120_000);
  });
}
