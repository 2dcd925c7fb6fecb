/**
 * Every message can be read: a full message's response stays under Lambda's 6 MB as Lambda counts it (the
 * message's JSON inside the proxy result's JSON, escaped twice), whatever the mail put in it. Found: a 1.1 MB
 * subject of control characters made GET message and wait a 502 for good.
 */
import fc from 'fast-check';
import { LAMBDA_RESPONSE_LIMIT_BYTES, MESSAGE_CAPS, MESSAGE_RESPONSE_SHARES } from '../../lambdas/core/limits';
import { DISABLED_VERDICTS, type MessageDetail, type MessageRecord } from '../../lambdas/core/model';
import { messageView, prefixWithin, snapshotView } from '../../lambdas/contract/views';
import { messageDetail, SUBJECT_CUT_MARK, summaryFields, wellFormed } from '../../lambdas/core/message';

/** What Lambda counts for an answer carrying `body`. */
const proxyResultBytes = (body: unknown) =>
  Buffer.byteLength(JSON.stringify({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }));

/** The bytes `value` costs escaped twice, without the quotes each escape adds. */
const twiceEscaped = (value: string) => Buffer.byteLength(JSON.stringify(JSON.stringify(value))) - 6;

it('counts what each character costs in the response exactly, and never splits a surrogate pair', () => {
  const unit = fc.constantFrom('a', '"', '\\', '\n', '\t', '\u0001', '\u001f', '\u007f', 'é', '€', '\u2028', '😀', '\ud800', '\udc00', '/');
  fc.assert(
    fc.property(fc.array(unit, { maxLength: 80, size: 'max' }).map((units) => units.join('')), fc.nat(400), (value, budget) => {
      const n = prefixWithin(value, budget);
      expect(twiceEscaped(value.slice(0, n))).toBeLessThanOrEqual(budget);
      if (n < value.length) {
        // the next character (or pair) would not fit
        const pair = /[\ud800-\udbff]/.test(value[n]) && /[\udc00-\udfff]/.test(value[n + 1] ?? '') ? 2 : 1;
        expect(twiceEscaped(value.slice(0, n + pair))).toBeGreaterThan(budget);
        expect(/[\ud800-\udbff]/.test(value[n - 1] ?? '') && /[\udc00-\udfff]/.test(value[n])).toBe(false);
      }
    }),
    { numRuns: 3_000 },
  );
});

describe('a message whose every part is as large and as costly to escape as a mail can make it', () => {
  const worst = (chars: number) => '\u0001'.repeat(chars);
  const record: MessageRecord = {
    id: 'msg_01hostile0000000000000000',
    inbox_id: 'inbox_hostile',
    from: worst(MESSAGE_CAPS.addressChars),
    from_name: worst(MESSAGE_CAPS.summaryFromNameChars),
    subject: worst(MESSAGE_CAPS.summarySubjectChars),
    to: 'x@tempmail.local',
    received_at: new Date(0).toISOString(),
    size: 40 * 1024 * 1024,
    auth: DISABLED_VERDICTS,
    raw_key: 'inboxes/inbox_hostile/msg/raw.eml',
  };
  const detail: MessageDetail = {
    text: '"'.repeat(3_000_000),
    // Links whose every character costs 7 bytes escaped twice, with anchor text as costly: `verification` lists them.
    html: Array.from({ length: 300 }, (_, i) => `<a href="https://x.test/${i}/${'&#1;'.repeat(MESSAGE_CAPS.linkChars - 20)}">${worst(5_000)}</a>`).join(''),
    attachments: Array.from({ length: MESSAGE_CAPS.attachments }, (_, i) => ({
      id: `att_${i + 1}`,
      filename: worst(MESSAGE_CAPS.filenameChars),
      content_type: worst(200),
      size: 1,
      content_id: worst(998),
      key: `inboxes/inbox_hostile/msg/att_${i + 1}`,
    })),
    attachment_count: 990,
    codes: ['482913'],
    links: Array.from({ length: MESSAGE_CAPS.links }, (_, i) => `https://x.test/${i}/${worst(MESSAGE_CAPS.linkChars - 20)}`),
    links_truncated: false,
    cc: Array.from({ length: MESSAGE_CAPS.addresses }, () => worst(MESSAGE_CAPS.addressChars)),
    reply_to: Array.from({ length: MESSAGE_CAPS.addresses }, () => worst(MESSAGE_CAPS.addressChars)),
    message_id: worst(998),
    in_reply_to: worst(998),
    headers: Array.from({ length: MESSAGE_CAPS.headers }, () => ({ name: worst(200), value: worst(MESSAGE_CAPS.headerValueChars) })),
    headers_truncated: false,
    parse_error: worst(10_000),
    full_subject: worst(1_100_000),
    full_from_name: worst(7_000_000),
  };
  const urls = detail.attachments.map((a) => `http://127.0.0.1:3000/_downloads/${a.key}?expires=1&type=x&disposition=y&signature=${'s'.repeat(43)}`);
  const view = messageView(record, detail, urls);

  it("fits in Lambda's response", () => {
    expect(proxyResultBytes(view)).toBeLessThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  });

  it('cuts each part to its share and says which lists and bodies were cut', () => {
    expect(twiceEscaped(view.text)).toBeLessThanOrEqual(MESSAGE_RESPONSE_SHARES.body);
    expect(view.text.length).toBeGreaterThan(400_000); // a quote costs 4 bytes: about half a million of them fit
    expect(view.body_truncated).toBe(true);
    expect(view.subject.length).toBeGreaterThan(10_000);
    expect(view.headers.length).toBeGreaterThan(0);
    expect(view.headers_truncated).toBe(true);
    expect(view.links_truncated).toBe(true);
    expect(view.attachments_truncated).toBe(true);
    expect(view.codes).toEqual(['482913']);
    expect(view.verification.links.length).toBeGreaterThan(0);
    expect(view.verification.links_truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(JSON.stringify(view.verification.links)))).toBeLessThanOrEqual(MESSAGE_RESPONSE_SHARES.verification + 10);
  });
});

it('leaves an ordinary message whole', () => {
  const record: MessageRecord = {
    id: 'msg_01ordinary00000000000000',
    inbox_id: 'inbox_ordinary',
    from: 'a@example.com',
    from_name: 'A "quoted" name',
    subject: 'Your code: 482913',
    to: 'x@tempmail.local',
    received_at: new Date(0).toISOString(),
    size: 2048,
    auth: DISABLED_VERDICTS,
    raw_key: 'raw',
  };
  const detail: MessageDetail = {
    text: 'Your code is 482913.\n'.repeat(1_000),
    html: '<p class="x">Your code is <b>482913</b></p>'.repeat(1_000),
    attachments: [],
    attachment_count: 0,
    codes: ['482913'],
    links: ['https://x.test/verify?a=1&b="2"'],
    links_truncated: false,
    cc: ['c@example.com'],
    reply_to: [],
    message_id: '<m@example.com>',
    in_reply_to: null,
    headers: [{ name: 'Subject', value: 'Your code: 482913' }],
    headers_truncated: false,
    parse_error: null,
  };
  const view = messageView(record, detail, []);
  expect(view).toMatchObject({ ...detail, from_name: record.from_name, subject: record.subject, body_truncated: false, attachments_truncated: false });
});

it('says the bodies were cut when they were read cut, whether or not the answer cuts them again', () => {
  const record = { id: 'msg_01cut0000000000000000000', inbox_id: 'inbox_cut', from: 'a@example.com', from_name: null, subject: 's', to: 'x@tempmail.local', received_at: new Date(0).toISOString(), size: 1, auth: DISABLED_VERDICTS, raw_key: 'raw' } satisfies MessageRecord;
  // What a read of a 40 MB text gives (usecases/messages.ts BODY_READ_CHARS): fits the answer as it is.
  const text = 'x'.repeat(1_000);
  const detail = { ...messageDetail(record, { text }), bodies_cut: true as const };
  expect(messageView(record, detail, [])).toMatchObject({ text, body_truncated: true });
  expect(messageView(record, { ...detail, bodies_cut: undefined }, []).body_truncated).toBe(false);
  expect(snapshotView(record.id, { subject: 's', text, html: '' }, true)).toMatchObject({ text, truncated: true });
  expect(snapshotView(record.id, { subject: 's', text, html: '' }).truncated).toBe(false);
});

describe('the summary of a long subject', () => {
  const max = MESSAGE_CAPS.summarySubjectChars;
  it('ends a cut subject with an ellipsis, within the cap, and keeps the whole one for the message', () => {
    const subject = 'a'.repeat(max + 500);
    const { summary, whole } = summaryFields({ from: 'x@example.com', from_name: null, subject });
    expect(summary.subject).toHaveLength(max);
    expect(summary.subject.endsWith(SUBJECT_CUT_MARK)).toBe(true);
    expect(summary.subject.slice(0, -SUBJECT_CUT_MARK.length)).toBe(subject.slice(0, max - SUBJECT_CUT_MARK.length));
    expect(whole.full_subject).toBe(subject);
  });
  it('leaves a subject of exactly the cap whole, and never splits a surrogate pair before the mark', () => {
    const exact = 'b'.repeat(max);
    expect(summaryFields({ from: 'x', from_name: null, subject: exact }).summary.subject).toBe(exact);
    const emoji = '\u{1F600}'.repeat(max);
    const cut = summaryFields({ from: 'x', from_name: null, subject: emoji }).summary.subject;
    expect(cut.endsWith(SUBJECT_CUT_MARK)).toBe(true);
    expect(cut.length).toBeLessThanOrEqual(max);
    expect(wellFormed(cut)).toBe(cut);
  });
});
