/**
 * CloudFormation's intrinsic functions, resolved once for the whole template form: the runner's resource model
 * (template.ts: environments, API Gateway, event sources, queues) and the IAM policy model (iam/template.ts:
 * policies and resource policies) both call this walker with their own names. There were two walkers, and they
 * disagreed at the edges (`${!Literal}` in Fn::Sub, AWS::NoValue in lists, which functions were known); a policy
 * and the resource it names must be resolved by the same rules or the gate allows or denies for the wrong reason.
 *
 * What a Ref or a Fn::GetAtt names is the caller's (`resolve`); everything else is here. Anything unknown is an error
 * rather than a guess.
 */
import type { AwsJson } from './cfn-json';

/** A Ref (attribute undefined) or a Fn::GetAtt (pseudo parameters included), answered with the local name or ARN. */
export type IntrinsicResolver = (logicalId: string, attribute?: string) => unknown;

/** The part of a template the walker reads: its Conditions, for Fn::If and the condition functions. */
export interface WithConditions {
  Conditions?: Record<string, unknown>;
}

export const NO_VALUE_REF = 'AWS::NoValue';

/** Marker for AWS::NoValue: removed from the lists and objects that hold it (undefined at the top). */
const NO_VALUE = Symbol(NO_VALUE_REF);

/**
 * Resolves Ref, Fn::GetAtt, Fn::Join, Fn::Sub (with `${!Literal}`), Fn::Select, Fn::Split, Fn::If, Fn::Base64,
 * Fn::GetAZs, Fn::Contains, and the condition functions (Fn::Equals, Fn::And, Fn::Or, Fn::Not, Condition) over
 * resolved values, deeply. A condition named by Fn::If or Condition is the template's (`template.Conditions`).
 */
export function resolveIntrinsics(value: unknown, resolve: IntrinsicResolver, template?: WithConditions): AwsJson {
  const condition = (name: string): boolean => {
    const definition = template?.Conditions?.[name];
    if (definition === undefined) throw new Error(`the template has no condition ${name}`);
    return Boolean(walk(definition));
  };
  const substitute = (arg: unknown): string => {
    const [text, variables] = typeof arg === 'string' ? [arg, {}] : (arg as [string, Record<string, unknown>]);
    return text.replace(/\$\{(!?)([^}]+)\}/g, (_whole, literal: string, name: string) => {
      if (literal) return `\${${name}}`;
      if (name in variables) return String(walk(variables[name]));
      const [id, ...attribute] = name.split('.');
      return String(attribute.length ? resolve(id, attribute.join('.')) : resolve(id));
    });
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk).filter((x) => x !== NO_VALUE && x !== undefined);
    if (!v || typeof v !== 'object') return v;
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 1) {
      const [fn, arg] = entries[0];
      switch (fn) {
        case 'Ref':
          return arg === NO_VALUE_REF ? NO_VALUE : resolve(String(arg));
        case 'Fn::GetAtt': {
          const [id, ...attribute] = Array.isArray(arg) ? (arg as string[]) : String(arg).split('.');
          return resolve(id, attribute.join('.'));
        }
        case 'Fn::Join': {
          const [separator, parts] = arg as [string, unknown];
          return (walk(parts) as unknown[]).map(String).join(separator);
        }
        case 'Fn::Sub':
          return substitute(arg);
        case 'Fn::Select': {
          const [index, list] = arg as [unknown, unknown];
          return (walk(list) as unknown[])[Number(walk(index))];
        }
        case 'Fn::Split': {
          const [separator, source] = arg as [string, unknown];
          return String(walk(source)).split(separator);
        }
        case 'Fn::If': {
          const [name, whenTrue, whenFalse] = arg as [string, unknown, unknown];
          return walk(condition(name) ? whenTrue : whenFalse);
        }
        case 'Fn::Equals': {
          const [a, b] = (arg as [unknown, unknown]).map(walk);
          // Scalars compare as CloudFormation's strings do ("1" equals 1); lists by their contents.
          return typeof a === 'object' || typeof b === 'object' ? JSON.stringify(a) === JSON.stringify(b) : String(a) === String(b);
        }
        case 'Fn::And':
          return (arg as unknown[]).every((c) => Boolean(walk(c)));
        case 'Fn::Or':
          return (arg as unknown[]).some((c) => Boolean(walk(c)));
        case 'Fn::Not':
          return !walk((arg as unknown[])[0]);
        case 'Condition':
          return condition(String(arg));
        case 'Fn::Base64':
          return Buffer.from(String(walk(arg))).toString('base64');
        case 'Fn::GetAZs':
          return ['a', 'b', 'c'].map((zone) => `${String(resolve('AWS::Region'))}${zone}`);
        case 'Fn::Contains': {
          const [list, item] = walk(arg) as [unknown[], unknown];
          return list.includes(item);
        }
      }
      if (fn.startsWith('Fn::')) throw new Error(`intrinsic function ${fn} is not supported by the template form`);
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of entries) {
      const r = walk(x);
      if (r !== NO_VALUE && r !== undefined) out[k] = r;
    }
    return out;
  };
  const resolved = walk(value);
  return resolved === NO_VALUE ? undefined : resolved;
}
