/// <reference lib="dom" />
/**
 * The viewer remembers a key in the browser when asked (issue 23: a deep link opened in a new tab asked for the key
 * again): in real Chromium against the shared local stack, a deep link opened in a new tab of the same browser opens
 * the inbox when the key was remembered, asks for the key when it was not, and asks again after sign-out.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { sharedStack } from '../support/shared';
import { storesFor } from '../support/store';
import { issueKey } from '../../lambdas/usecases/keys';

const stack = sharedStack();
let browser: Browser;
let key: string;
let inbox: { id: string; email: string };

beforeAll(async () => {
  key = (await issueKey(storesFor(stack).keyContext, 'enterprise')).key;
  const reply = await fetch(`${stack.apiUrl}/v1/inboxes`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: '{}' });
  inbox = (await reply.json()) as { id: string; email: string };
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** Types the key on the key screen of a new tab, remembering it or not. */
async function signIn(context: BrowserContext, remember: boolean) {
  const page = await context.newPage();
  await page.goto(`${stack.apiUrl}/`);
  await page.getByLabel('API key').fill(key);
  if (remember) await page.getByLabel(/Remember this key in this browser/).check();
  await page.getByRole('button', { name: 'Open' }).click();
  await page.getByRole('heading', { name: 'Inboxes', level: 1 }).waitFor();
  return page;
}

/** A deep link to the inbox, opened in a new tab of `context`: what it shows first. */
async function openDeepLinkInNewTab(context: BrowserContext): Promise<'inbox' | 'key screen'> {
  const tab = await context.newPage();
  await tab.goto(`${stack.apiUrl}/#/inboxes/${inbox.id}`);
  const shown = await Promise.race([
    tab.getByRole('heading', { name: inbox.email, level: 1 }).waitFor().then(() => 'inbox' as const),
    tab.getByLabel('API key').waitFor().then(() => 'key screen' as const),
  ]);
  await tab.close();
  return shown;
}

it('a remembered key opens deep links in new tabs; sign-out forgets it', async () => {
  const context = await browser.newContext();
  const page = await signIn(context, true);
  expect(await page.evaluate(() => localStorage.getItem('tempmail.apiKey'))).toBe(key);
  expect(await openDeepLinkInNewTab(context)).toBe('inbox');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  expect(await page.evaluate(() => localStorage.getItem('tempmail.apiKey'))).toBeNull();
  expect(await openDeepLinkInNewTab(context)).toBe('key screen');
  await context.close();
});

it('without the box ticked (the default) the key stays in its tab: a new tab asks for it', async () => {
  const context = await browser.newContext();
  const page = await signIn(context, false);
  expect(await page.evaluate(() => localStorage.getItem('tempmail.apiKey'))).toBeNull();
  expect(await openDeepLinkInNewTab(context)).toBe('key screen');
  await context.close();
});
