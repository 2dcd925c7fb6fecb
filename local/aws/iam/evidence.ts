/**
 * Least privilege from evidence: what each function was allowed to do while the scenarios ran, against what its
 * role grants. A grant (one action on one resource pattern of an Allow statement) that no recorded call used is
 * either excess, to remove from lib/, or needed for a reason no local call can show (reasons.ts says which).
 */
import fs from 'node:fs';
import { functionIds, identityPolicies, type CfnTemplate, type NamedPolicy, type PolicyStatement, type Resolver } from './template';

export interface RecordedCall {
  functionLogicalId: string;
  action: string;
  resource: string;
}

export class EvidenceRecorder {
  private readonly seen = new Map<string, RecordedCall & { count: number }>();

  record(functionLogicalId: string, action: string, resource: string): void {
    const key = `${functionLogicalId}\0${action}\0${resource}`;
    const entry = this.seen.get(key);
    if (entry) entry.count++;
    else this.seen.set(key, { functionLogicalId, action, resource, count: 1 });
  }

  /** Every distinct allowed (function, action, resource), with how often. */
  calls(): (RecordedCall & { count: number })[] {
    return [...this.seen.values()].map((c) => ({ ...c }));
  }

  clear(): void {
    this.seen.clear();
  }
}

export interface UnusedGrant {
  functionLogicalId: string;
  /** The action as granted (may be a wildcard). */
  action: string;
  /** The resource pattern as granted (after intrinsics). */
  resource: string;
  /** The policy that grants it (logical id or managed policy ARN). */
  policy: string;
}

/** IAM's wildcard match: `*` any run, `?` one character; actions case-insensitively, ARNs case-sensitively. */
export function wildcardMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * What a run proved, in one file a report can read without the runner: each function's policies as the gate
 * resolved them (so granted and called ARNs name the same local resources) and the calls it allowed.
 */
export interface EvidenceSnapshot {
  policies: Record<string, NamedPolicy[]>;
  calls: RecordedCall[];
  /** The template's own reasons for grants only the Lambda service uses (reasons.ts: templateReasons), resolved. */
  reasons?: { functionLogicalId: string; actions: readonly string[]; resource?: string; reason: string }[];
}

export function writeEvidence(file: string, snapshot: EvidenceSnapshot): void {
  fs.writeFileSync(file, `${JSON.stringify(snapshot, null, 1)}\n`, { mode: 0o600 });
}

export function readEvidence(file: string): EvidenceSnapshot {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as EvidenceSnapshot;
}

/**
 * Several runs' evidence as one (the scenarios of one test run use several stacks of one template): the first
 * snapshot's policies and reasons, every snapshot's calls. A stack run from an altered copy of the template adds
 * its calls only: what was used, not what was granted.
 */
export function mergeEvidence(snapshots: readonly EvidenceSnapshot[]): EvidenceSnapshot {
  if (snapshots.length === 0) throw new Error('no evidence to merge');
  const seen = new Set<string>();
  const calls: RecordedCall[] = [];
  for (const call of snapshots.flatMap((s) => s.calls)) {
    const key = `${call.functionLogicalId}\0${call.action}\0${call.resource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    calls.push({ functionLogicalId: call.functionLogicalId, action: call.action, resource: call.resource });
  }
  return { policies: snapshots[0].policies, reasons: snapshots[0].reasons, calls };
}

/**
 * Per function, each granted (action, resource pattern) of its role's Allow statements that no recorded call
 * matched. `resolve` must be the one the recording gate used, so that granted and called ARNs name the same things.
 */
export function unusedGrants(
  template: CfnTemplate,
  recorded: readonly RecordedCall[],
  resolve: Resolver,
  functions: readonly string[] = functionIds(template),
): UnusedGrant[] {
  return unusedGrantsOf({ policies: Object.fromEntries(functions.map((fn) => [fn, identityPolicies(template, fn, resolve)])), calls: [...recorded] });
}

/** The same from a snapshot. NotAction / NotResource statements are reported whole (they cannot be enumerated). */
export function unusedGrantsOf(snapshot: EvidenceSnapshot): UnusedGrant[] {
  const unused: UnusedGrant[] = [];
  for (const [fn, policies] of Object.entries(snapshot.policies)) {
    const calls = snapshot.calls.filter((c) => c.functionLogicalId === fn);
    for (const { name, policy } of policies) {
      for (const statement of policy.Statement as PolicyStatement[]) {
        if (statement.Effect !== 'Allow') continue;
        if (statement.NotAction || statement.NotResource) {
          unused.push({ functionLogicalId: fn, action: JSON.stringify(statement.NotAction ?? statement.Action), resource: JSON.stringify(statement.NotResource ?? statement.Resource), policy: name });
          continue;
        }
        for (const action of list(statement.Action)) {
          for (const resource of list(statement.Resource)) {
            const used = calls.some((c) => wildcardMatch(action, c.action, true) && wildcardMatch(resource, c.resource));
            if (!used) unused.push({ functionLogicalId: fn, action, resource, policy: name });
          }
        }
      }
    }
  }
  return unused;
}
