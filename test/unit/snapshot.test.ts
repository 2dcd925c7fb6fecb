/**
 * The snapshot normaliser (core/snapshot.ts, GET …/snapshot): what changes between runs becomes a stable placeholder
 * by the documented rules, the same value the same placeholder in subject, text and HTML; the rest stays as it was.
 */
import { snapshotOf, type SnapshotInput } from '../../lambdas/core/snapshot';
import { expectLinearGrowth } from '../support/growth';

const base: SnapshotInput = { subject: '', text: '', html: '', inboxEmail: 'k3x9q2@tempmail.local', messageIds: [], boundaries: [] };
const snap = (fields: Partial<SnapshotInput>) => snapshotOf({ ...base, ...fields });

it('replaces codes (also split ones), the same code by the same placeholder in every field', () => {
  expect(snap({ subject: '482913 is your code', text: 'Your code is 482913.\nOr type 482 913. Order 55512345 is unchanged.', html: '<p>Code: <b>482913</b></p>' })).toEqual({
    subject: '<CODE-1> is your code',
    text: 'Your code is <CODE-1>.\nOr type <CODE-1>. Order 55512345 is unchanged.',
    html: '<p>Code: <b><CODE-1></b></p>',
  });
});

it('drops tracking parameters, replaces secret parameters and generated path segments, keeps the rest of a URL', () => {
  const text =
    'Verify: https://acme.example/verify?token=abc&lang=en&utm_source=mail&utm_campaign=x\n' +
    'Reset: https://acme.example/reset/9f8e7d6c5b4a39281706f5e4/confirm?step=2#top\n' +
    'S3: https://b.s3.amazonaws.com/f.pdf?X-Amz-Signature=deadbeef&X-Amz-Expires=900.';
  expect(snap({ text }).text).toBe(
    'Verify: https://acme.example/verify?token=<TOKEN-1>&lang=en\n' +
      'Reset: https://acme.example/reset/<TOKEN-2>/confirm?step=2#top\n' +
      'S3: https://b.s3.amazonaws.com/f.pdf?X-Amz-Signature=<TOKEN-3>&X-Amz-Expires=<TOKEN-4>.',
  );
  expect(snap({ html: '<a href="https://x.test/v?t=abc&amp;utm_medium=email&amp;c=905331">Go</a> code 905331' }).html).toBe('<a href="https://x.test/v?t=<TOKEN-1>&amp;c=<CODE-1>">Go</a> code <CODE-1>');
});

it('replaces dates, times, message ids, the inbox address and MIME boundaries', () => {
  const out = snap({
    subject: 'Welcome, k3x9q2+signup@tempmail.local',
    text:
      'Sent Thu, 26 Nov 2026 16:02:33 +0000 and 2026-11-26T16:02:33.123Z; due November 27, 2026 at 4:02 PM or 27.11.2026.\n' +
      'At 09:15 again on 2026-11-26. Ref <CAF1234abcd@mail.acme.example>, in reply to 0a1b2c3d4e@acme.example.\n' +
      '------=_Part_1234_5678.1700000000000 and custom-boundary-xyz',
    html: '<p>Ref &lt;CAF1234abcd@mail.acme.example&gt; for k3x9q2@TempMail.local</p>',
    messageIds: ['<0a1b2c3d4e@acme.example>'],
    boundaries: ['custom-boundary-xyz'],
  });
  expect(out).toEqual({
    subject: 'Welcome, <INBOX-ADDRESS>',
    text:
      'Sent <DATE-1> and <DATE-2>; due <DATE-3> or <DATE-4>.\n' +
      'At <TIME-1> again on <DATE-5>. Ref <MESSAGE-ID-1>, in reply to <MESSAGE-ID-2>.\n' +
      '<BOUNDARY-2> and <BOUNDARY-1>',
    html: '<p>Ref &lt;MESSAGE-ID-1&gt; for <INBOX-ADDRESS></p>',
  });
});

it('is stable: two runs of the same mail with other codes, tokens, dates and address give the same snapshot', () => {
  const mail = (code: string, token: string, date: string, user: string): SnapshotInput => ({
    ...base,
    inboxEmail: `${user}@tempmail.local`,
    subject: `Your code ${code}`,
    text: `Hi ${user}@tempmail.local, your verification code is ${code}. Verify: https://a.example/v?token=${token}&utm_source=x (${date})`,
    html: `<p>code <b>${code}</b></p><a href="https://a.example/v?token=${token}">Verify</a>`,
  });
  expect(snapshotOf(mail('482913', 'abc123', '2026-11-26T10:00:00Z', 'user1'))).toEqual(snapshotOf(mail('771204', 'zz99', '2027-01-02T23:59:59Z', 'other2')));
});

it('leaves mail without variable parts as it was', () => {
  const fields = { subject: 'Hello', text: 'Thanks for joining. See https://acme.example/docs?page=2', html: '<p>Thanks</p>' };
  expect(snap(fields)).toEqual(fields);
});

describe.each([
  ['long runs of digits and colons', (n: number) => '1:2:3:4 '.repeat(n / 8)],
  ['URLs with many parameters', (n: number) => `https://x.test/?${'a=1&'.repeat(n / 4)}`],
  ['unclosed message ids', (n: number) => '<abc@'.repeat(n / 5)],
  ['month names and numbers', (n: number) => '26 November 20 '.repeat(n / 15)],
])('on adversarial input: %s', (_name, make) => {
  it('grows linearly with the input', () => {
    expectLinearGrowth((input: string) => snap({ subject: input.slice(0, 1000), text: input, html: input }), make(10_000), make(160_000));
  });
});
