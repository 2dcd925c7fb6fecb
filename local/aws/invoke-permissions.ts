/**
 * Who may invoke a function: the template's AWS::Lambda::Permission resources, each a statement of the function's
 * resource policy, checked as Lambda checks them when a service invokes the function on AWS:
 * - API Gateway (apigateway.amazonaws.com) invokes an integration with the method's ARN as its source
 *   (`arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>`) and an authorizer with
 *   `…:<api>/authorizers/<id>`; without a matching permission it answers 500 (local/aws/api-gateway.ts);
 * - SES (ses.amazonaws.com) invokes a receipt rule's Lambda action with the rule's ARN and the account as its source;
 *   SES tries that permission when the rule is created, so without one the stack fails to start (local/aws/mail.ts).
 * A statement matches when its action is lambda:InvokeFunction (or a wildcard over it), its principal is the
 * caller's service, and its SourceArn (IAM wildcards) and SourceAccount, when given, are the caller's. What the
 * Lambda service invokes with a function's own role (event source mappings) or CloudFormation with the deployer's
 * (custom resources) needs no permission, as on AWS.
 */
import { wildcardMatch } from './iam';
import type { LocalStackModel } from './template';

export interface InvokeCaller {
  /** The service principal, e.g. apigateway.amazonaws.com. */
  principal: string;
  sourceArn: string;
  sourceAccount?: string;
}

interface Statement {
  logicalId: string;
  action: string;
  principal: string;
  sourceArn?: string;
  sourceAccount?: string;
}

export class InvokePermissions {
  private readonly byFunction = new Map<string, Statement[]>();

  constructor(model: LocalStackModel) {
    for (const [logicalId, r] of model.resources('AWS::Lambda::Permission')) {
      const p = model.resolve(r.Properties ?? {}) as Record<string, unknown>;
      const fn = model.functionByArn(String(p.FunctionName));
      if (!fn) continue;
      const principal = typeof p.Principal === 'string' ? p.Principal : String((p.Principal as { Service?: string } | undefined)?.Service ?? '');
      const statement: Statement = { logicalId, action: String(p.Action), principal, sourceArn: p.SourceArn === undefined ? undefined : String(p.SourceArn), sourceAccount: p.SourceAccount === undefined ? undefined : String(p.SourceAccount) };
      this.byFunction.set(fn, [...(this.byFunction.get(fn) ?? []), statement]);
    }
  }

  /** Null when the caller may invoke the function, else why not (Lambda's wording). */
  refusal(functionLogicalId: string, caller: InvokeCaller): string | null {
    const allowed = (this.byFunction.get(functionLogicalId) ?? []).some(
      (s) =>
        wildcardMatch(s.action, 'lambda:InvokeFunction', true) &&
        s.principal === caller.principal &&
        (s.sourceArn === undefined || wildcardMatch(s.sourceArn, caller.sourceArn)) &&
        (s.sourceAccount === undefined || s.sourceAccount === caller.sourceAccount),
    );
    return allowed ? null : `${caller.principal} (source ${caller.sourceArn}) is not authorized to perform lambda:InvokeFunction on ${functionLogicalId}: no resource-based policy (AWS::Lambda::Permission) allows it`;
  }
}
