/**
 * Inbox groups' rules (core/address.ts): the group's alphabet, and the username derived from a group and a test name
 * (POST /v1/inboxes with `group` and `test_name`), which must be the same on every run and always a valid username.
 */
import fc from 'fast-check';
import { GROUP_PATTERN, normalizeGroup, USERNAME_PATTERN, usernameFor } from '../../lambdas/core/address';

// The pattern without its look-ahead (fast-check cannot generate from one), then filtered by the whole rule.
const group = fc
  .stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,30}[A-Za-z0-9])?$/)
  .filter((g) => GROUP_PATTERN.test(g))
  .map((g) => g.toLowerCase());

it('accepts groups of 1 to 32 letters, digits, ".", "_" and "-" that start and end with a letter or digit, stored lower-case', () => {
  expect(['a', 'CI-Run.42_x', 'w'.repeat(32), '9']).toEqual(['a', 'CI-Run.42_x', 'w'.repeat(32), '9'].filter((g) => normalizeGroup(g) !== null));
  expect(normalizeGroup('CI-Run.42_x')).toBe('ci-run.42_x');
  for (const bad of ['', '-a', 'a-', '.a', 'a..b', 'a b', 'a#b', 'ä', 'w'.repeat(33)]) expect(normalizeGroup(bad)).toBeNull();
});

it('derives <group>-<slug>-<digest>, the same on every run (these values are the documented rule)', () => {
  expect(usernameFor('ci-7', 'signup sends a link')).toBe('ci-7-signup-sends-a-link-de1d1287');
  expect(usernameFor('worker-3', 'Checkout › pays with a saved card (EUR)')).toBe('worker-3-checkout-pays-with-a-saved-card-eur-d9437ba3');
  expect(usernameFor('ci-7', '!!!')).toMatch(/^ci-7-[0-9a-f]{8}$/);
});

it('keeps names whose slugs agree apart, and the same name apart in two groups', () => {
  expect(usernameFor('g', 'a b')).not.toBe(usernameFor('g', 'a-b'));
  expect(usernameFor('g1', 'same test')).not.toBe(usernameFor('g2', 'same test'));
});

it('is always a valid username of at most 64 characters, whatever the group and the test name', () => {
  fc.assert(
    fc.property(group, fc.string({ unit: 'grapheme', maxLength: 500 }), (g, name) => {
      const username = usernameFor(g, name);
      expect(username.length).toBeLessThanOrEqual(64);
      expect(username).toMatch(USERNAME_PATTERN);
      expect(username.startsWith(`${g}-`)).toBe(true);
      expect(usernameFor(g, name)).toBe(username);
    }),
    { numRuns: 500 },
  );
});
