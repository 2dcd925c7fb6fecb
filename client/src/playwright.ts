/**
 * `tempmail-client/playwright`: Playwright fixtures that give each test an inbox in a group of its own, deleted
 * after the test whether it passed or failed. They are the plain helpers of tempmail-client/testing handed to
 * Playwright's `test.extend`, so this module imports nothing of Playwright at run time: the project extends its own
 * `test` from its own @playwright/test (an optional peer dependency; only its types are named here).
 *
 *     import { test as base, expect } from '@playwright/test';
 *     import { tempmailFixtures } from 'tempmail-client/playwright';
 *     const test = base.extend(tempmailFixtures());
 *     test('signs up', async ({ page, inbox }) => { …; await page.goto(await inbox.link({ text: 'confirm' })); });
 */
import type { Fixtures, TestType } from '@playwright/test';
import type { TempMailClient } from './index.js';
import { clientFor, createTestInbox, type TestInbox, type TestInboxOptions } from './testing.js';

export { TestInbox, type Conditions, type MessagePick, type WaitSettings } from './testing.js';

/** Settings of the fixtures: as createTestInbox's, less what each test names itself. Also settable per project as `use: { tempmailOptions }`. */
export type TempMailOptions = Omit<TestInboxOptions, 'client' | 'testName' | 'username'>;

export interface TempMailTestFixtures {
  /** This test's inbox, in a group of its own; the group is deleted after the test. Made only for tests that use it. */
  inbox: TestInbox;
}

export interface TempMailWorkerFixtures {
  tempmailOptions: TempMailOptions;
  /** The worker's client, for what the inbox does not cover. */
  tempmail: TempMailClient;
}

/** The fixtures, for `test.extend(tempmailFixtures({ groupPrefix: 'e2e' }))`. */
export function tempmailFixtures(defaults: TempMailOptions = {}): Fixtures<TempMailTestFixtures, TempMailWorkerFixtures> {
  return {
    tempmailOptions: [defaults, { scope: 'worker', option: true }],
    tempmail: [
      async ({ tempmailOptions }, use) => {
        await use(clientFor(tempmailOptions));
      },
      { scope: 'worker' },
    ],
    inbox: async ({ tempmail, tempmailOptions }, use, testInfo) => {
      // The title path without the file: the username is derived from it, so it reads as the test's name.
      const testName = testInfo.titlePath.slice(1).join(' › ') || testInfo.title;
      const inbox = await createTestInbox({ ...tempmailOptions, client: tempmail, testName });
      testInfo.annotations.push({ type: 'tempmail', description: `${inbox.email} (group ${inbox.group})` });
      try {
        await use(inbox);
      } finally {
        await inbox.dispose();
      }
    },
  };
}

/** `test` extended with the fixtures: `export const test = withTempMail(base)`. */
export function withTempMail<T extends object, W extends object>(test: TestType<T, W>, defaults?: TempMailOptions): TestType<T & TempMailTestFixtures, W & TempMailWorkerFixtures> {
  return test.extend<TempMailTestFixtures, TempMailWorkerFixtures>(tempmailFixtures(defaults));
}
