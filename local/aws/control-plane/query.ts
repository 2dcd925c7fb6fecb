/**
 * CloudFormation and SES v1 in the control-plane stand-in (local/aws/control-plane/): the query protocol
 * (form-encoded `Action=…`, XML answers). CloudFormation answers DescribeStacks; SES the receipt rule sets' create,
 * delete (refused while active), list, describe-active and set-active.
 */
import { ServiceError, type Check, type ControlPlaneState } from './state';

export const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** {a: 'x', b: ['y']} → <a>x</a><b><member>y</member></b>; undefined members are left out. */
export type Xml = string | number | boolean | Date | undefined | Xml[] | { [key: string]: Xml };
export function toXml(value: Xml): string {
  if (value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((v) => `<member>${toXml(v)}</member>`).join('');
  if (typeof value === 'object')
    return Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `<${k}>${toXml(v)}</${k}>`)
      .join('');
  return xmlEscape(String(value));
}

export const QUERY_NAMESPACES = { cloudformation: 'http://cloudformation.amazonaws.com/doc/2010-05-15/', ses: 'http://ses.amazonaws.com/doc/2010-12-01/' };

export async function cloudFormation(state: ControlPlaneState, check: Check, operation: string, params: URLSearchParams, accessKeyId?: string): Promise<Xml> {
  const { region, account, stacks } = state;
  if (operation !== 'DescribeStacks') throw new ServiceError(400, 'InvalidAction', `${operation} is not answered by this stand-in`);
  const wanted = params.get('StackName');
  const entries = [...stacks.entries()].filter(([name, s]) => !wanted || wanted === name || wanted === s.id);
  const resource = entries.length === 1 ? entries[0][1].id : `arn:aws:cloudformation:${region}:${account}:stack/${wanted ?? '*'}/*`;
  await check({ service: 'cloudformation', action: 'cloudformation:DescribeStacks', operation, resource, accessKeyId });
  if (wanted && entries.length === 0) throw new ServiceError(400, 'ValidationError', `Stack with id ${wanted} does not exist`);
  return {
    Stacks: entries.map(([name, s]) => ({
      StackId: s.id,
      StackName: name,
      CreationTime: s.created,
      StackStatus: 'CREATE_COMPLETE',
      Outputs: Object.entries(s.outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
    })),
  };
}

export async function ses(state: ControlPlaneState, check: Check, operation: string, params: URLSearchParams, accessKeyId?: string): Promise<Xml> {
  const { ruleSets } = state;
  const known = ['CreateReceiptRuleSet', 'DeleteReceiptRuleSet', 'ListReceiptRuleSets', 'DescribeActiveReceiptRuleSet', 'SetActiveReceiptRuleSet'];
  if (!known.includes(operation)) throw new ServiceError(400, 'InvalidAction', `${operation} is not answered by this stand-in`);
  // SES's receipt-rule-set actions have no resource type: IAM evaluates them on *.
  await check({ service: 'ses', action: `ses:${operation}`, operation, resource: '*', accessKeyId });
  const name = params.get('RuleSetName') ?? undefined;
  const mustExist = (n: string) => {
    if (!ruleSets.has(n)) throw new ServiceError(400, 'RuleSetDoesNotExist', `Rule set does not exist: ${n}`);
  };
  switch (operation) {
    case 'CreateReceiptRuleSet':
      if (!name) throw new ServiceError(400, 'ValidationError', 'RuleSetName is required');
      if (ruleSets.has(name)) throw new ServiceError(400, 'AlreadyExists', `Rule set already exists: ${name}`);
      ruleSets.set(name, new Date());
      return {};
    case 'DeleteReceiptRuleSet':
      if (!name) throw new ServiceError(400, 'ValidationError', 'RuleSetName is required');
      if (name === state.activeRuleSet) throw new ServiceError(400, 'CannotDelete', `Cannot delete active rule set: ${name}`);
      ruleSets.delete(name);
      return {};
    case 'ListReceiptRuleSets':
      return { RuleSets: [...ruleSets].map(([Name, CreatedTimestamp]) => ({ Name, CreatedTimestamp })) };
    case 'DescribeActiveReceiptRuleSet':
      return state.activeRuleSet === undefined ? {} : { Metadata: { Name: state.activeRuleSet, CreatedTimestamp: ruleSets.get(state.activeRuleSet) }, Rules: [] };
    default: // SetActiveReceiptRuleSet
      if (name !== undefined) mustExist(name);
      state.activeRuleSet = name;
      return {};
  }
}
