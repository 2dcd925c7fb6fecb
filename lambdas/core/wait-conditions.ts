/**
 * What a test author's wait condition means (POST …/messages/wait, issue 24): how `contains`, `equals` and `regex`
 * test a field's values (core/wait-fields.ts names them) and how `match: all|any` combines conditions. Pure: the use
 * case (usecases/wait.ts) reads messages and holds the request; everything it decides about one message is here.
 *
 * Regular expressions run on RE2 (re2-wasm): linear in the text whatever the pattern, so a pattern a caller sends
 * cannot hold a function for minutes on a megabyte of HTML (JavaScript's backtracking engine can). RE2 refuses what
 * it cannot do in linear time (look-around, back-references): such a pattern is a 400 like a malformed one. The
 * engine is a WebAssembly file read from beside the module (or bundle) when the first pattern is compiled: only
 * bundles that import this module carry it (lib/re2-asset.ts).
 */
import type { RE2 } from 're2-wasm';
import { badRequest } from './errors';
import { CONDITION_FIELDS, fieldValues, fold, HEADER_NAME_RULE, isConditionField, WAIT_CONDITION_LIMITS, type CompiledConditions, type Condition, type FailedCondition } from './wait-fields';

let engine: { RE2: typeof RE2 } | undefined;
function re2(pattern: string): RE2 {
  // Loaded on first use: re2-wasm reads and compiles its 850 KB of WebAssembly when it is required.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (above)
  engine ??= require('re2-wasm') as { RE2: typeof RE2 };
  return new engine.RE2(pattern, 'u');
}

interface Test {
  (value: string): boolean;
  dispose?: () => void;
}

/**
 * re2-wasm keeps each compiled pattern in WebAssembly memory until its wrapper is deleted, and that memory is a fixed
 * 16 MB: about 5,000 patterns never freed exhaust it and every later one aborts (measured). Its RE2 class has no
 * public way to free; the embind wrapper it holds does.
 */
function free(regex: RE2): void {
  (regex as unknown as { wrapper?: { delete?: () => void } }).wrapper?.delete?.();
}

function tester(condition: Condition, index: number): Test {
  if (condition.op === 'contains') {
    const wanted = fold(condition.value);
    return (value) => fold(value).includes(wanted);
  }
  if (condition.op === 'equals') {
    const wanted = fold(condition.value);
    return (value) => fold(value) === wanted;
  }
  let regex: RE2;
  try {
    regex = re2(condition.value);
  } catch (error) {
    throw badRequest(`conditions[${index}].value is not a regular expression RE2 accepts (no look-around or back-references): ${(error as Error).message}`);
  }
  const test: Test = (value) => regex.test(value.length <= WAIT_CONDITION_LIMITS.regexInputChars ? value : value.slice(0, WAIT_CONDITION_LIMITS.regexInputChars));
  test.dispose = () => free(regex);
  return test;
}

const seenOf = (values: string[]): string | null => {
  if (values.length === 0) return null;
  const value = values[0];
  return value.length <= WAIT_CONDITION_LIMITS.seenChars ? value : `${value.slice(0, WAIT_CONDITION_LIMITS.seenChars - 1)}\u2026`;
};

/**
 * Compiles the conditions once per request (a bad pattern throws the 400 before anything is read). No conditions
 * match every message. `contains` and `equals` ignore case; `regex` is case-sensitive unless the pattern says `(?i)`.
 */
export function compileConditions(conditions: readonly Condition[], match: 'all' | 'any' = 'all'): CompiledConditions {
  const tests: { condition: Condition; test: Test }[] = [];
  const dispose = () => tests.forEach(({ test }) => test.dispose?.());
  try {
    conditions.forEach((condition, index) => {
      if (!isConditionField(condition.field)) throw badRequest(`conditions[${index}].field must be one of ${CONDITION_FIELDS.join(', ')} or header:<Name>, the name ${HEADER_NAME_RULE}`);
      tests.push({ condition, test: tester(condition, index) });
    });
  } catch (error) {
    dispose();
    throw error;
  }
  return {
    dispose,
    conditions,
    match,
    evaluate(candidate) {
      const failed: FailedCondition[] = [];
      for (const { condition, test } of tests) {
        const values = fieldValues(candidate, condition.field);
        if (!values.some(test)) failed.push({ ...condition, seen: seenOf(values) });
      }
      const matched = tests.length === 0 || (match === 'all' ? failed.length === 0 : failed.length < tests.length);
      return { matched, failed };
    },
  };
}
