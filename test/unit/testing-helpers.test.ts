/**
 * The pure parts of tempmail-client/testing: a group name made from any prefix is one the API takes (its own rule,
 * GROUP_PATTERN), new on every call; and the shorthand conditions become the wait endpoint's.
 */
import fc from 'fast-check';
import { newGroup, toConditions } from '../../client/src/testing';
import { GROUP_MAX_LENGTH, GROUP_PATTERN } from '../../lambdas/core/address';

it('makes a group the API takes from any prefix, with 8 random hex digits after it', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 80 }), (prefix) => {
      const group = newGroup(prefix);
      expect(group).toMatch(GROUP_PATTERN);
      expect(group.length).toBeLessThanOrEqual(GROUP_MAX_LENGTH);
      expect(group).toMatch(/-[0-9a-f]{8}$/);
      expect(group).toBe(group.toLowerCase());
    }),
    { numRuns: 500 },
  );
  expect(newGroup('CI Run #42 / worker 3')).toMatch(/^ci-run-42-worker-3-[0-9a-f]{8}$/);
  expect(newGroup('..--!!')).toMatch(/^test-[0-9a-f]{8}$/);
  expect(newGroup('a'.repeat(40))).toMatch(/^a{23}-[0-9a-f]{8}$/);
  expect(newGroup('x')).not.toBe(newGroup('x'));
});

it('turns the shorthand into conditions: a string is contains, a RegExp is regex with its i, m and s flags inline', () => {
  expect(toConditions({ subject: 'Welcome', from: /@acme\.example$/i, text: /^code: \d+/gms, 'header:X-Tag': /a/ })).toEqual([
    { field: 'subject', op: 'contains', value: 'Welcome' },
    { field: 'from', op: 'regex', value: '(?i)@acme\\.example$' },
    { field: 'text', op: 'regex', value: '(?ms)^code: \\d+' },
    { field: 'header:X-Tag', op: 'regex', value: 'a' },
  ]);
  const given = [{ field: 'to', op: 'equals' as const, value: 'a@b.c' }];
  expect(toConditions(given)).toBe(given);
  expect(toConditions()).toEqual([]);
});
