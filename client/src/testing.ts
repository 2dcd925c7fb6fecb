/**
 * `tempmail-client/testing`: an inbox per test for any test runner (jest, vitest, node:test, mocha). Each inbox is
 * made in a group of its own and the whole group is deleted after the test, so parallel workers never share an
 * inbox and a test's leftovers never reach the next one. The inbox waits with the server's conditions (any length:
 * the client repeats the server's bounded wait), picks the one code or link with the exactly-one rule of code() and
 * link(), and a wait that times out says what arrived instead. The Playwright fixture (tempmail-client/playwright)
 * is this, handed to each test.
 */
import { code, link, type CodeOptions, type LinkOptions } from './extract.js';
import { DEFAULT_WAIT_SECONDS, TempMailApiError, TempMailClient } from './index.js';
import type { CreateInboxInput, InboxCreated, Message } from './types.js';
import type { NearMiss, WaitCondition, WaitForOptions } from './wait-types.js';

/**
 * What a message must match: the endpoint's conditions as they are, or a shorthand object of field → value, where a
 * string means `contains` (any case) and a RegExp means `regex` (its i, m and s flags become RE2's (?i), (?m), (?s)).
 */
export type Conditions = WaitCondition[] | Record<string, string | RegExp>;

/** How a wait is done: as waitFor's options, with the conditions given apart. */
export type WaitSettings = Omit<WaitForOptions, 'conditions' | 'count'>;

/** Which message code() and link() read: the one given, or the one message matching `where`, waited for. */
export interface MessagePick {
  message?: Message;
  where?: Conditions;
  /** Seconds to wait for it; default the inbox's timeout. */
  timeout?: number;
  after?: string;
}

export interface TestInboxOptions extends Omit<CreateInboxInput, 'group' | 'test_name'> {
  /** A client to use; else one is made from apiKey and baseUrl. */
  client?: TempMailClient;
  /** Default: the TEMPMAIL_API_KEY environment variable. */
  apiKey?: string;
  /** Default: TEMPMAIL_API_URL, else the local stack (http://127.0.0.1:3000). */
  baseUrl?: string;
  /** The group is `<prefix>-<8 random hex digits>`; default TEMPMAIL_GROUP, else "test" (cut to 23 characters). */
  groupPrefix?: string;
  /** The test's name: the username is derived from it and the group (docs/API.md "Inbox groups"), unless `username` is given. */
  testName?: string;
  /** Seconds each wait of this inbox takes at most when it names none. Default 20. */
  timeout?: number;
}

const env = (name: string): string | undefined => (typeof process === 'undefined' ? undefined : process.env[name] || undefined);

/** A client from the options or the environment (TEMPMAIL_API_KEY, TEMPMAIL_API_URL). */
export function clientFor(options: Pick<TestInboxOptions, 'client' | 'apiKey' | 'baseUrl'> = {}): TempMailClient {
  if (options.client) return options.client;
  const apiKey = options.apiKey ?? env('TEMPMAIL_API_KEY');
  if (!apiKey) throw new TypeError('tempmail-client/testing needs an API key: pass apiKey or set TEMPMAIL_API_KEY');
  return new TempMailClient({ apiKey, baseUrl: options.baseUrl ?? env('TEMPMAIL_API_URL') });
}

/** A group name of the API's alphabet (1–32 of a-z 0-9 . _ -, a letter or digit at each end), new on every call. */
export function newGroup(prefix = env('TEMPMAIL_GROUP') ?? 'test'): string {
  const trim = (s: string) => s.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  const clean = trim(trim(prefix.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/\.{2,}/g, '.')).slice(0, 23)) || 'test';
  const random = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${clean}-${random}`;
}

/** The shorthand made into the endpoint's conditions. */
export function toConditions(conditions: Conditions = []): WaitCondition[] {
  if (Array.isArray(conditions)) return conditions;
  return Object.entries(conditions).map(([field, value]) => {
    if (typeof value === 'string') return { field, op: 'contains', value };
    const flags = [...value.flags].filter((f) => 'ims'.includes(f)).join('');
    return { field, op: 'regex', value: `${flags ? `(?${flags})` : ''}${value.source}` };
  });
}

const wanted = (conditions: WaitCondition[]) => (conditions.length ? conditions.map((c) => `${c.field} ${c.op} ${JSON.stringify(c.value)}`).join(', ') : 'any message');

/** A 408 or 409 retold with the inbox and the conditions, and a 408 with each near miss and the conditions it failed, so a failed test says what arrived instead. */
function explained(error: unknown, email: string, conditions: WaitCondition[], hint = ''): unknown {
  if (!(error instanceof TempMailApiError) || (error.status !== 408 && error.status !== 409)) return error;
  const near = (error.details.near_misses as NearMiss[] | undefined) ?? [];
  const lines = near.map(
    (m) => `  ${m.id} from ${JSON.stringify(m.from)}, subject ${JSON.stringify(m.subject)}: ` + m.failed.map((f) => `${f.field} ${f.op} ${JSON.stringify(f.value)} (seen ${JSON.stringify(f.seen)})`).join('; '),
  );
  const message = `${email}, waiting for ${wanted(conditions)}: ${error.message}${error.status === 409 ? hint : ''}${lines.length ? `\n${lines.join('\n')}` : ''}`;
  return new TempMailApiError(error.status, message, error.requestId, error.retryAfter, error.details);
}

/** One test's inbox: made by createTestInbox, gone (with its group) after dispose(). */
export class TestInbox {
  readonly id: string;
  readonly email: string;
  /** The test's own group: every inbox made with another() is in it, and dispose() deletes them all. */
  readonly group: string;
  readonly expiresAt: string;

  constructor(
    readonly client: TempMailClient,
    created: InboxCreated & { group: string },
    private readonly timeout = DEFAULT_WAIT_SECONDS,
  ) {
    this.id = created.id;
    this.email = created.email;
    this.group = created.group;
    this.expiresAt = created.expires_at;
  }

  /** The oldest message matching the conditions, waited for up to `timeout` seconds; a timeout throws 408 listing what arrived instead. */
  async waitFor(conditions?: Conditions, settings: WaitSettings = {}): Promise<Message> {
    return (await this.waitForMessages(1, conditions, settings))[0];
  }

  /** The oldest `count` messages matching the conditions, once that many have arrived; `exact`: more throws 409. */
  async waitForMessages(count: number, conditions?: Conditions, settings: WaitSettings = {}): Promise<Message[]> {
    const list = toConditions(conditions);
    try {
      return (await this.client.waitFor(this.id, { timeout: this.timeout, ...settings, count, conditions: list })).messages;
    } catch (error) {
      throw explained(error, this.email, list, ' (name the one you mean: where, or after)');
    }
  }

  /** Resolves when no message matches for `timeout` seconds; throws 409 naming the message as soon as one does. "Nothing was sent." */
  async expectNoMessage(conditions?: Conditions, settings: Omit<WaitSettings, 'exact'> = {}): Promise<void> {
    const list = toConditions(conditions);
    try {
      await this.client.expectNoMessage(this.id, { timeout: this.timeout, ...settings, conditions: list });
    } catch (error) {
      throw explained(error, this.email, list);
    }
  }

  /** The one verification code of the one message matching `where` (waited for); throws listing the candidates otherwise. */
  async code(options: CodeOptions & MessagePick = {}): Promise<string> {
    const { message, where, timeout, after, ...pick } = options;
    return code(message ?? (await this.only(where, timeout, after)), pick);
  }

  /** The one link (its URL) of the one message matching `where` (waited for), chosen by its text or URL; throws listing the candidates otherwise. */
  async link(options: LinkOptions & MessagePick = {}): Promise<string> {
    const { message, where, timeout, after, ...pick } = options;
    return link(message ?? (await this.only(where, timeout, after)), pick);
  }

  /** Another inbox in this test's group, deleted with it. */
  async another(input: Omit<CreateInboxInput, 'group'> = {}): Promise<TestInbox> {
    const created = await this.client.createInbox({ ...input, group: this.group });
    return new TestInbox(this.client, { ...created, group: this.group }, this.timeout);
  }

  /** Deletes the group: this inbox, every another() of it, and their messages. */
  async dispose(): Promise<void> {
    await this.client.deleteInboxes(this.group);
  }

  /** Exactly one matching message: a second one already there is 409, not a silent pick of the oldest. */
  private only(where: Conditions | undefined, timeout: number | undefined, after: string | undefined): Promise<Message> {
    return this.waitFor(where, { exact: true, ...(timeout === undefined ? {} : { timeout }), ...(after === undefined ? {} : { after }) });
  }
}

/** A new inbox in a group of its own. Call dispose() after the test (or use withInbox, which does). */
export async function createTestInbox(options: TestInboxOptions = {}): Promise<TestInbox> {
  const { client: given, apiKey, baseUrl, groupPrefix, testName, timeout, ...input } = options;
  const client = clientFor({ client: given, apiKey, baseUrl });
  const group = newGroup(groupPrefix);
  const named = testName && input.username === undefined ? { test_name: testName.slice(0, 500) } : {};
  const created = await client.createInbox({ ...input, ...named, group });
  return new TestInbox(client, { ...created, group }, timeout);
}

/** Runs `test` with a new inbox and deletes its group afterwards, whether the test passed or threw. */
export async function withInbox<T>(options: TestInboxOptions, test: (inbox: TestInbox) => Promise<T>): Promise<T> {
  const inbox = await createTestInbox(options);
  try {
    return await test(inbox);
  } finally {
    await inbox.dispose();
  }
}
