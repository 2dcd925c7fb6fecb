/** The rules of POST …/messages/wait's conditions (core/wait-conditions.ts), without a stack. */
import { ApiError } from '../../lambdas/core/errors';
import { compileConditions } from '../../lambdas/core/wait-conditions';
import { fieldValues, WAIT_CONDITION_LIMITS, type Candidate } from '../../lambdas/core/wait-fields';

const mail: Candidate = {
  subject: 'Your code is 482913',
  from: 'noreply@acme.example',
  from_name: 'Acme Sign-up',
  to: 'alice@tempmail.local',
  envelope: { from: 'bounce@acme.example', to: 'Alice+signup@tempmail.local' },
  text: 'Welcome! Your code is 482913.',
  html: '<p>Welcome! <a href="https://acme.example/verify?t=abc">Verify</a></p>',
  headers: [
    { name: 'To', value: 'Alice <alice+signup@tempmail.local>' },
    { name: 'X-Campaign', value: 'welcome-2026' },
    { name: 'x-campaign', value: 'second' },
  ],
  attachments: [{ filename: 'invoice.pdf' }, { filename: null }],
};

const verdict = (conditions: Parameters<typeof compileConditions>[0], match?: 'all' | 'any') => compileConditions(conditions, match).evaluate(mail);

describe('fields', () => {
  it('names the values a field holds', () => {
    expect(fieldValues(mail, 'from')).toEqual(['noreply@acme.example', 'Acme Sign-up <noreply@acme.example>']);
    expect(fieldValues(mail, 'to')).toEqual(['Alice <alice+signup@tempmail.local>', 'Alice+signup@tempmail.local', 'alice@tempmail.local']);
    expect(fieldValues(mail, 'header:x-CAMPAIGN')).toEqual(['welcome-2026', 'second']);
    expect(fieldValues(mail, 'header:X-Missing')).toEqual([]);
    expect(fieldValues(mail, 'attachment_name')).toEqual(['invoice.pdf']);
  });
});

describe('operators', () => {
  it('contains and equals ignore case', () => {
    expect(verdict([{ field: 'subject', op: 'contains', value: 'YOUR CODE' }]).matched).toBe(true);
    expect(verdict([{ field: 'subject', op: 'equals', value: 'your code is 482913' }]).matched).toBe(true);
    expect(verdict([{ field: 'subject', op: 'equals', value: 'your code' }]).matched).toBe(false);
    expect(verdict([{ field: 'from', op: 'equals', value: 'NOREPLY@acme.example' }]).matched).toBe(true);
  });

  it('regex is RE2, case-sensitive unless (?i), unanchored unless anchored', () => {
    expect(verdict([{ field: 'text', op: 'regex', value: 'code is \\d{6}' }]).matched).toBe(true);
    expect(verdict([{ field: 'text', op: 'regex', value: 'CODE' }]).matched).toBe(false);
    expect(verdict([{ field: 'text', op: 'regex', value: '(?i)CODE' }]).matched).toBe(true);
    expect(verdict([{ field: 'text', op: 'regex', value: '^Your' }]).matched).toBe(false);
    expect(verdict([{ field: 'html', op: 'regex', value: 'href="https://acme\\.example/verify\\?t=\\w+"' }]).matched).toBe(true);
  });

  it('matches a field with several values when one of them does: To header, envelope (+tag) or inbox address', () => {
    expect(verdict([{ field: 'to', op: 'contains', value: 'alice+signup@' }]).matched).toBe(true);
    expect(verdict([{ field: 'to', op: 'equals', value: 'alice@tempmail.local' }]).matched).toBe(true);
    expect(verdict([{ field: 'header:X-Campaign', op: 'equals', value: 'second' }]).matched).toBe(true);
    expect(verdict([{ field: 'attachment_name', op: 'regex', value: '\\.pdf$' }]).matched).toBe(true);
  });

  it.each([['(unclosed'], ['(?=lookahead)'], ['(a)\\1']])('refuses the pattern %j with a 400 naming the condition', (value) => {
    let thrown: unknown;
    try {
      compileConditions([{ field: 'subject', op: 'contains', value: 'x' }, { field: 'subject', op: 'regex', value }]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).status).toBe(400);
    expect((thrown as ApiError).message).toMatch(/^conditions\[1\]\.value is not a regular expression RE2 accepts/);
  });

  it('runs a pattern that backtracks catastrophically in JavaScript in linear time', () => {
    // (a+)+$ against "aaaa…b" takes JavaScript's engine 2^n steps; RE2 answers at once.
    const text = `${'a'.repeat(50_000)}b`;
    expect(compileConditions([{ field: 'text', op: 'regex', value: '^(a+)+$' }]).evaluate({ ...mail, text }).matched).toBe(false);
  });
});

describe('match all | any, and what a failure says', () => {
  const hit = { field: 'subject', op: 'contains', value: '482913' } as const;
  const miss = { field: 'from', op: 'contains', value: 'billing@' } as const;
  const absent = { field: 'header:X-Missing', op: 'equals', value: 'x' } as const;

  it('all needs every condition, any needs one', () => {
    expect(verdict([hit, miss], 'all').matched).toBe(false);
    expect(verdict([hit, miss], 'any').matched).toBe(true);
    expect(verdict([miss, absent], 'any').matched).toBe(false);
    expect(verdict([]).matched).toBe(true);
  });

  it('lists each failed condition with the value seen, cut, or null when the field is absent', () => {
    const long = compileConditions([{ field: 'text', op: 'contains', value: 'nope' }]).evaluate({ ...mail, text: 'y'.repeat(5_000) });
    expect(long.failed[0].seen).toHaveLength(WAIT_CONDITION_LIMITS.seenChars);
    expect(verdict([hit, miss, absent]).failed).toEqual([
      { ...miss, seen: 'noreply@acme.example' },
      { ...absent, seen: null },
    ]);
  });

  it('refuses an unknown field', () => {
    expect(() => compileConditions([{ field: 'cc', op: 'contains', value: 'x' }])).toThrow(/field must be one of/);
  });

  it('refuses a header name no mail can carry (empty, a colon, a NUL, a space, over 200 characters), and takes any real one', () => {
    for (const name of ['', 'X:Y', 'X\u0000Y', 'X Y', 'x'.repeat(201), 'Sujet-é']) {
      expect(() => compileConditions([{ field: `header:${name}`, op: 'contains', value: 'x' }])).toThrow(/header:<Name>, the name 1 to 200 printable ASCII characters without ":"/);
    }
    for (const name of ['X-Campaign', 'x'.repeat(200), 'List-Unsubscribe-Post', 'X-Weird!#$%&*+.^_`|~']) {
      expect(() => compileConditions([{ field: `header:${name}`, op: 'contains', value: 'x' }]).dispose()).not.toThrow();
    }
  });
});

describe("RE2's fixed WebAssembly memory", () => {
  it('frees compiled patterns: six thousand waits with a regex each do not exhaust it (about 5,000 unfreed do)', () => {
    for (let i = 0; i < 6_000; i++) {
      const compiled = compileConditions([{ field: 'subject', op: 'regex', value: `code-${i}-(x|y)+\\d{3}` }]);
      expect(compiled.evaluate(mail).matched).toBe(false);
      compiled.dispose();
    }
  });

  it('reads at most regexInputChars of a value: two million three-byte characters do not abort it', () => {
    const html = `${'€'.repeat(2_000_000)}tail`;
    const compiled = compileConditions([{ field: 'html', op: 'regex', value: '^€+' }, { field: 'html', op: 'regex', value: 'tail' }]);
    expect(compiled.evaluate({ ...mail, html }).failed.map((f) => f.value)).toEqual(['tail']);
    compiled.dispose();
  });
});
