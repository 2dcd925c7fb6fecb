/**
 * tempmail-client/testing (issue 24 item 6) under jest, as a user's suite has it: an inbox per test in a group of its
 * own (beforeEach/afterEach, or withInbox around one test), mail over real SMTP, the waits with shorthand conditions,
 * code() and link() of the one matching message, failures that say what arrived instead, and each group gone after
 * its test, also when the test threw. The Playwright side is test/e2e/playwright-fixture.test.ts.
 */
import { TempMailApiError, TempMailClient, TempMailMatchError } from '../../client/src';
import { createTestInbox, withInbox, type TestInbox } from '../../client/src/testing';
import { usernameFor } from '../../lambdas/core/address';
import { sendMail } from '../support/mail';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const client = new TempMailClient({ apiKey: stack.keys.enterprise, baseUrl: stack.apiUrl });
const FROM = 'Acme <noreply@acme.example>';
const groupIsGone = async (group: string) => expect((await client.listInboxes({ group })).inboxes).toEqual([]);

describe('an inbox per test with beforeEach and afterEach', () => {
  let inbox: TestInbox;
  const groups: string[] = [];
  beforeEach(async () => {
    inbox = await createTestInbox({ client, groupPrefix: 'jest', testName: expect.getState().currentTestName, timeout: 15 });
    groups.push(inbox.group);
  });
  afterEach(() => inbox.dispose());
  afterAll(async () => {
    expect(groups).toHaveLength(3);
    for (const group of groups) await groupIsGone(group);
  });

  it('gives the code of the one mail, waited for, and the link by its text', async () => {
    expect(inbox.group).toMatch(/^jest-[0-9a-f]{8}$/);
    expect(inbox.email.split('@')[0]).toBe(usernameFor(inbox.group, expect.getState().currentTestName!));
    await sendMail(stack.smtpPort, {
      from: FROM,
      to: inbox.email,
      subject: 'Your code',
      text: 'Your code is 482913.',
      html: '<p>Your code is <b>482913</b>.</p><p><a href="https://acme.example/confirm?t=1">Confirm your address</a> <a href="https://acme.example/help">Help</a></p>',
    });
    expect(await inbox.code()).toBe('482913');
    expect(await inbox.link({ text: 'confirm' })).toBe('https://acme.example/confirm?t=1');
    const error = await inbox.link({ where: { subject: /^your CODE$/i } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TempMailMatchError);
    expect((error as Error).message).toMatch(/^expected exactly 1 link in message msg_\w+ \(subject "Your code"\), found 2:\n {2}https:\/\/acme\.example\/confirm\?t=1 /);
  });

  it('waits for a count, and code() refuses to pick one of two matching mails', async () => {
    for (const n of [1, 2]) await sendMail(stack.smtpPort, { from: FROM, to: inbox.email, subject: `Code ${n}`, text: `Your code is 10000${n}.` });
    const both = await inbox.waitForMessages(2, { subject: 'code' });
    expect(both.map((m) => m.subject).sort()).toEqual(['Code 1', 'Code 2']);
    const error = (await inbox.code().catch((e: unknown) => e)) as TempMailApiError;
    expect(error).toBeInstanceOf(TempMailApiError);
    expect([error.status, error.message]).toEqual([409, expect.stringMatching(/^\S+@\S+, waiting for any message: expected exactly 1 matching message, but 2 match: msg_\w+, msg_\w+ \(name the one you mean: where, or after\)$/)]);
    expect(await inbox.code({ where: { subject: 'code 2' } })).toBe('100002');
    expect(await inbox.code({ where: [{ field: 'text', op: 'regex', value: '10+1' }] })).toBe('100001');
  });

  it('says what arrived when a wait times out, and that nothing matching was sent', async () => {
    await sendMail(stack.smtpPort, { from: FROM, to: inbox.email, subject: 'Welcome', text: 'Hello' });
    const welcome = await inbox.waitFor({ subject: 'welcome' });
    const error = (await inbox.waitFor({ subject: 'reset', from: /@acme\.example/i }, { timeout: 2 }).catch((e: unknown) => e)) as TempMailApiError;
    expect(error.status).toBe(408);
    expect(error.message).toBe(
      `${inbox.email}, waiting for subject contains "reset", from regex "(?i)@acme\\\\.example": expected 1 matching message within 2 s; 1 message arrived, 0 matching; near_misses lists the latest 1 that did not match\n` +
        `  ${welcome.id} from "noreply@acme.example", subject "Welcome": subject contains "reset" (seen "Welcome")`,
    );
    await inbox.expectNoMessage({ subject: 'reset' }, { timeout: 2 });
    const sent = await inbox.expectNoMessage({ from: 'acme' }, { timeout: 2 }).catch((e: unknown) => e);
    expect(sent).toMatchObject({ status: 409, details: { message_id: welcome.id } });
  });
});

it('withInbox deletes the group after the test, with every inbox made in it, also when the test throws', async () => {
  let group = '';
  const result = await withInbox({ client }, async (inbox) => {
    group = inbox.group;
    const other = await inbox.another();
    expect(other.group).toBe(group);
    expect((await client.listInboxes({ group })).inboxes).toHaveLength(2);
    await sendMail(stack.smtpPort, { from: FROM, to: other.email, subject: 'Your code', text: 'Your code is 731904.' });
    return other.code();
  });
  expect(result).toBe('731904');
  await groupIsGone(group);

  const thrown = await withInbox({ client }, async (inbox) => {
    group = inbox.group;
    throw new Error('the test failed');
  }).catch((e: unknown) => e);
  expect(thrown).toEqual(new Error('the test failed'));
  await groupIsGone(group);
});

it('takes the key and the URL from TEMPMAIL_API_KEY and TEMPMAIL_API_URL, and says when the key is missing', async () => {
  const saved = { key: process.env.TEMPMAIL_API_KEY, url: process.env.TEMPMAIL_API_URL };
  try {
    delete process.env.TEMPMAIL_API_KEY;
    await expect(createTestInbox()).rejects.toThrow('tempmail-client/testing needs an API key: pass apiKey or set TEMPMAIL_API_KEY');
    Object.assign(process.env, { TEMPMAIL_API_KEY: stack.keys.enterprise, TEMPMAIL_API_URL: stack.apiUrl });
    const inbox = await createTestInbox({ groupPrefix: 'From the Env!' });
    expect(inbox.group).toMatch(/^from-the-env-[0-9a-f]{8}$/);
    await inbox.dispose();
    await groupIsGone(inbox.group);
  } finally {
    for (const [name, value] of [['TEMPMAIL_API_KEY', saved.key], ['TEMPMAIL_API_URL', saved.url]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
