/**
 * Lambda's event filtering (FilterCriteria patterns: exact values, prefix, suffix, equals-ignore-case, anything-but,
 * numeric, exists), on its own: the rules are Lambda's and do not change with how records are read, while events.ts
 * is about reading the stream and the queues and invoking the functions. A record a mapping's patterns do not match
 * never reaches (or bills) the function, so the template's filters decide what the deployed functions see.
 */
import type { Dict } from './cfn-json';

/** Lambda's event filtering: does `value` (a record) match `pattern` (one FilterCriteria pattern)? */
export function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((rule) => matchesRule(rule, value));
  if (pattern && typeof pattern === 'object') {
    if (!value || typeof value !== 'object') {
      // {"exists": false} on a missing field
      return Object.values(pattern as Dict).every((p) => Array.isArray(p) && p.some((r) => r && typeof r === 'object' && r.exists === false));
    }
    return Object.entries(pattern as Dict).every(([key, p]) => matchesPattern(p, (value as Dict)[key]));
  }
  return false;
}

function matchesRule(rule: unknown, value: unknown): boolean {
  const values = Array.isArray(value) ? value : [value];
  if (rule === null || typeof rule !== 'object') return values.some((v) => v === rule);
  const r = rule as Dict;
  if ('exists' in r) return r.exists ? value !== undefined : value === undefined;
  if (value === undefined) return false;
  if ('prefix' in r) return values.some((v) => typeof v === 'string' && v.startsWith(String(r.prefix)));
  if ('suffix' in r) return values.some((v) => typeof v === 'string' && v.endsWith(String(r.suffix)));
  if ('equals-ignore-case' in r) return values.some((v) => typeof v === 'string' && v.toLowerCase() === String(r['equals-ignore-case']).toLowerCase());
  if ('anything-but' in r) {
    const but = ([] as unknown[]).concat(r['anything-but']);
    return values.every((v) => !but.includes(v));
  }
  if ('numeric' in r) {
    const ops = r.numeric as unknown[];
    return values.some((v) => {
      const n = Number(v);
      for (let i = 0; i < ops.length; i += 2) {
        const [op, bound] = [ops[i], Number(ops[i + 1])];
        if (!((op === '=' && n === bound) || (op === '<' && n < bound) || (op === '<=' && n <= bound) || (op === '>' && n > bound) || (op === '>=' && n >= bound))) return false;
      }
      return true;
    });
  }
  return false;
}
