/**
 * POST /v1/inboxes/{id}/messages/wait (issue 24 items 1 and 2): conditions on every field, counts, the negative
 * form, and a timeout that says what arrived, over real HTTP and through the typed client, with mail over real SMTP.
 * Runs in the embedded and the dynamodb projects (jest.config.js), so both stores answer the same.
 */
import { TempMailApiError, TempMailClient } from '../../client/src';
import { expectError, http } from '../support/http';
import { eventually, sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';
import type { Json } from '../support/json';

const stack = sharedStack();
const api = http(stack.apiUrl, stack.keys.enterprise);
const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });
const wait = (inboxId: string, body: unknown) => api('POST', `/v1/inboxes/${inboxId}/messages/wait`, body);

async function inboxWith(count: number, mails: (email: string) => Parameters<typeof sendMail>[1][]) {
  const inbox = (await api('POST', '/v1/inboxes', {})).body as { id: string; email: string };
  for (const mail of mails(inbox.email)) await sendMail(stack.smtpPort, mail);
  await eventually(async () => ((await api('GET', `/v1/inboxes/${inbox.id}`)).body.message_count as number) === count, 15_000, `${count} messages`);
  return inbox;
}

describe('conditions', () => {
  let inbox: { id: string; email: string };
  beforeAll(async () => {
    inbox = await inboxWith(3, (email) => {
      const [name, domain] = email.split('@');
      return [
        { to: email, subject: 'Newsletter', text: 'nothing to see', headers: { 'X-Campaign': 'spring-sale' } },
        {
          to: `${name}+signup@${domain}`,
          from: 'Acme Sign-up <noreply@acme.example>',
          subject: 'Your code is 482913',
          text: 'Welcome! Your code is 482913.',
          html: '<p>Welcome! <a href="https://acme.example/verify?t=abc">Verify</a></p>',
          attachments: [{ filename: 'terms.pdf', content: 'pdf', contentType: 'application/pdf' }],
        },
        { to: email, subject: 'Receipt 1001', text: 'paid' },
      ];
    });
  });

  it.each([
    ['subject', 'contains', 'YOUR CODE'],
    ['subject', 'regex', '^Your code is \\d{6}$'],
    ['from', 'equals', 'noreply@acme.example'],
    ['from', 'contains', 'acme sign-up <'],
    ['to', 'contains', '+signup@'],
    ['text', 'regex', 'code is (\\d{6})'],
    ['html', 'contains', 'href="https://acme.example/verify'],
    ['attachment_name', 'equals', 'terms.pdf'],
    ['header:content-type', 'contains', 'multipart/'],
  ])('%s %s %j finds the sign-up mail, answered in full', async (field, op, value) => {
    const reply = await wait(inbox.id, { conditions: [{ field, op, value }], timeout: 5 });
    expect(reply.status).toBe(200);
    expect(reply.body.messages).toHaveLength(1);
    expect(reply.body.messages[0]).toMatchObject({ subject: 'Your code is 482913', codes: ['482913'], attachments: [expect.objectContaining({ filename: 'terms.pdf' })] });
  });

  it('header:<Name> tests a header the sender set', async () => {
    const reply = await wait(inbox.id, { conditions: [{ field: 'header:x-campaign', op: 'equals', value: 'SPRING-SALE' }], timeout: 5 });
    expect(reply.body.messages.map((m: Json) => m.subject)).toEqual(['Newsletter']);
  });

  it('match all needs every condition, any one of them; count answers the oldest count', async () => {
    const receipt = { field: 'subject', op: 'contains', value: 'receipt' };
    const news = { field: 'subject', op: 'contains', value: 'newsletter' };
    const all = await wait(inbox.id, { conditions: [receipt, news], match: 'all', timeout: 1 });
    expect([all.status, all.body.error.message]).toEqual([408, expect.stringMatching(/^expected 1 matching message within 1 s; 3 messages arrived, 0 matching/)]);
    const any = await wait(inbox.id, { conditions: [receipt, news], match: 'any', count: 2, timeout: 5 });
    expect(any.body.messages.map((m: Json) => m.subject)).toEqual(['Newsletter', 'Receipt 1001']);
  });

  it('exact: more than count matching is 409 naming them all', async () => {
    const reply = await wait(inbox.id, { count: 2, exact: true, timeout: 5 });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toMatchObject({ code: 409, message: expect.stringMatching(/^expected exactly 2 matching messages, but 3 match/), message_ids: [expect.any(String), expect.any(String), expect.any(String)] });
    expect((await wait(inbox.id, { count: 3, exact: true, timeout: 5 })).body.messages).toHaveLength(3);
  });

  it('after: only messages that arrived after it count', async () => {
    const all = (await wait(inbox.id, { count: 3, timeout: 5 })).body.messages as Json[];
    const reply = await wait(inbox.id, { after: all[0].id, conditions: [{ field: 'subject', op: 'contains', value: 'newsletter' }], timeout: 1 });
    expect(reply.status).toBe(408);
    expect(reply.body.error.message).toMatch(/2 messages arrived, 0 matching/);
  });

  it('a 408 lists near misses: the latest messages that did not match, the conditions each failed and what it held', async () => {
    const reply = await wait(inbox.id, { conditions: [{ field: 'subject', op: 'contains', value: 'password reset' }, { field: 'header:X-Campaign', op: 'equals', value: 'x' }], match: 'any', timeout: 1 });
    expect(reply.status).toBe(408);
    expect(Object.keys(reply.body.error)).toEqual(['code', 'message', 'near_misses']);
    const misses = reply.body.error.near_misses as Json[];
    expect(misses.map((m) => m.subject)).toEqual(['Receipt 1001', 'Your code is 482913', 'Newsletter']);
    expect(misses[2]).toEqual({
      id: expect.stringMatching(/^msg_/),
      from: 'sender@example.com',
      subject: 'Newsletter',
      received_at: expect.any(String),
      failed: [
        { field: 'subject', op: 'contains', value: 'password reset', seen: 'Newsletter' },
        { field: 'header:X-Campaign', op: 'equals', value: 'x', seen: 'spring-sale' },
      ],
    });
    expect(misses[0].failed[1]).toEqual({ field: 'header:X-Campaign', op: 'equals', value: 'x', seen: null });
  });

  it.each([
    [{ conditions: [{ field: 'subject', op: 'regex', value: '(unclosed' }] }, /^conditions\[0\]\.value is not a regular expression RE2 accepts/],
    [{ conditions: [{ field: 'subject', op: 'regex', value: '(?=look)ahead' }] }, /no look-around/],
    [{ conditions: [{ field: 'cc', op: 'contains', value: 'x' }] }, /field must be one of subject, from, to, text, html, attachment_name or header:<Name>/],
    [{ conditions: [{ field: 'subject', op: 'like', value: 'x' }] }, /^conditions\[0\]\.op: op must be one of contains, equals, regex/],
    [{ conditions: [{ field: 'subject', op: 'equals', value: 'x' }, { field: 'subject', op: 'equals', value: 7 }] }, /^conditions\[1\]\.value: value must be a string/],
    [{ none: true, count: 2 }, /none cannot be combined with count or exact/],
    [{ count: 11 }, /count must be an integer from 1 to 10/],
    [{ timeout: 26 }, /timeout must be an integer from 1 to 25/],
    [{ after: 'x' }, /after must be a message id/],
    [{ colour: 'red' }, /colour/],
  ])('refuses %j with 400 in the error format', async (body, message) => {
    expect(expectError(await wait(inbox.id, body), 400)).toMatch(message);
  });

  it("is 404 for another account's inbox", async () => {
    const other = http(stack.apiUrl, stack.keys.startup);
    expectError(await other('POST', `/v1/inboxes/${inbox.id}/messages/wait`, { timeout: 1 }), 404);
  });
});

describe('holding the request', () => {
  it('answers when the matching message arrives during the hold, not before', async () => {
    const inbox = await inboxWith(1, (email) => [{ to: email, subject: 'first', text: 'x' }]);
    const pending = wait(inbox.id, { conditions: [{ field: 'subject', op: 'equals', value: 'second' }], timeout: 20 });
    await sendMail(stack.smtpPort, { to: inbox.email, subject: 'second', text: 'y' });
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(reply.body.messages.map((m: Json) => m.subject)).toEqual(['second']);
  });

  it('none: 204 with no body when nothing matched for the whole window; 409 naming the message once one does', async () => {
    const inbox = await inboxWith(1, (email) => [{ to: email, subject: 'welcome', text: 'x' }]);
    const quiet = await wait(inbox.id, { none: true, conditions: [{ field: 'subject', op: 'contains', value: 'password' }], timeout: 1 });
    expect(quiet.status).toBe(204);
    expect(quiet.text).toBe('');
    const pending = wait(inbox.id, { none: true, conditions: [{ field: 'subject', op: 'contains', value: 'password' }], timeout: 20 });
    await sendMail(stack.smtpPort, { to: inbox.email, subject: 'Reset your password', text: 'y' });
    const loud = await pending;
    expect(loud.status).toBe(409);
    expect(loud.body.error).toEqual({ code: 409, message: expect.stringMatching(/^expected no matching message, but msg_\w+ \(subject "Reset your password"\) matches$/), message_id: expect.stringMatching(/^msg_/) });
  });

  it("tests the text of a large message, whose detail is kept in the message's body object (S3 on AWS)", async () => {
    const inbox = await inboxWith(1, (email) => [{ to: email, subject: 'large', text: `${'filler line\n'.repeat(15_000)}the marker at the end` }]);
    const reply = await wait(inbox.id, { conditions: [{ field: 'text', op: 'contains', value: 'marker at the end' }], timeout: 5 });
    expect(reply.body.messages?.map((m: Json) => m.subject)).toEqual(['large']);
  });
});

describe('through the typed client', () => {
  it('waitFor resolves the matching messages; expectNoMessage resolves on silence and throws 409 on a match', async () => {
    const inbox = await inboxWith(2, (email) => [
      { to: email, subject: 'Order 1', text: 'a' },
      { to: email, subject: 'Order 2', text: 'b' },
    ]);
    const found = await client.waitFor(inbox.id, { conditions: [{ field: 'subject', op: 'regex', value: '^Order \\d$' }], count: 2, timeout: 5 });
    expect(found.messages.map((m) => m.subject)).toEqual(['Order 1', 'Order 2']);
    await expect(client.expectNoMessage(inbox.id, { conditions: [{ field: 'subject', op: 'contains', value: 'refund' }], timeout: 1 })).resolves.toBeUndefined();
    const error = await client.expectNoMessage(inbox.id, { conditions: [{ field: 'subject', op: 'contains', value: 'order 2' }], timeout: 5 }).catch((e) => e);
    expect(error).toBeInstanceOf(TempMailApiError);
    expect(error).toMatchObject({ status: 409, details: { message_id: found.messages[1].id } });
    // The shortest timeout still asks the server: it once returned without a request when the clock had moved a
    // millisecond past its start. The clock here moves 2 ms at each reading, so that case happens every time.
    const realNow = Date.now.bind(Date);
    let readings = 0;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 2 * readings++);
    const atOnce = await client
      .expectNoMessage(inbox.id, { conditions: [{ field: 'subject', op: 'contains', value: 'order 1' }], timeout: 1 })
      .catch((e) => e)
      .finally(() => clock.mockRestore());
    expect(atOnce).toMatchObject({ status: 409, details: { message_id: found.messages[0].id } });
  });

  it('waitFor throws the 408 with its near misses when the time is up', async () => {
    const inbox = await inboxWith(1, (email) => [{ to: email, subject: 'Hello', text: 'a' }]);
    const error = await client.waitFor(inbox.id, { conditions: [{ field: 'subject', op: 'equals', value: 'Goodbye' }], timeout: 2 }).catch((e) => e);
    expect(error).toBeInstanceOf(TempMailApiError);
    expect(error.status).toBe(408);
    expect(error.message).toMatch(/1 message arrived, 0 matching/);
    expect(error.details.near_misses).toEqual([expect.objectContaining({ subject: 'Hello', failed: [{ field: 'subject', op: 'equals', value: 'Goodbye', seen: 'Hello' }] })]);
    await expect(client.waitFor(inbox.id, { conditions: [{ field: 'subject', op: 'regex', value: '(' }] })).rejects.toMatchObject({ status: 400 });
  });
});
