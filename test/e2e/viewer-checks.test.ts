/// <reference lib="dom" />
/**
 * The viewer's Checks tab (issue 25) in a real Chromium against the shared stack, for a mail over real SMTP: every
 * section the API answers, with its status, reason and each finding's result, check and detail; the results written
 * as words (readable without colour); a detail that quotes the mail's markup shown as text, never run; reached with
 * the arrow keys like the other tabs; axe-core clean in light and dark; "Check links too" asks for ?links=true.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { MessageChecks } from '../../client/src';
import { axeScan } from '../support/axe';
import { launchChromium } from '../support/browser';
import { HOSTILE_MESSAGE_ID, sendNewsletter } from '../support/check-mail';
import { http } from '../support/http';
import { newTestKey } from '../support/keys';
import { sharedStack } from '../support/shared';

const stack = sharedStack();
const ARTIFACTS = path.join(__dirname, '..', '..', 'artifacts', 'viewer');
let browser: Browser;
let page: Page;
let api: ReturnType<typeof http>;
let ids: { inboxId: string; messageId: string };
const requested: string[] = [];

const checksOf = async (query = '') => {
  const reply = await api('GET', `/v1/inboxes/${ids.inboxId}/messages/${ids.messageId}/checks${query}`);
  return reply;
};

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const key = await newTestKey(stack, 'enterprise');
  api = http(stack.apiUrl, key);
  const inbox = (await api('POST', '/v1/inboxes', { ttl: 600 })).body as { id: string; email: string };
  const messageId = await sendNewsletter(stack.smtpPort, inbox.email, async () => (await api('GET', `/v1/inboxes/${inbox.id}/messages`)).body.messages as unknown as { id: string }[]);
  ids = { inboxId: inbox.id, messageId };
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(`${stack.apiUrl}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Open' }).click();
  await page.getByRole('heading', { name: 'Inboxes', level: 1 }).waitFor();
  await page.goto(`${stack.apiUrl}/#/inboxes/${ids.inboxId}/messages/${ids.messageId}`);
  await page.getByRole('heading', { name: 'Our news', level: 1 }).waitFor();
}, 120_000);
afterAll(() => browser?.close());

it('is reached with the arrow keys from Raw; the checks run only once it is opened', async () => {
  expect(requested.filter((url) => url.includes('/checks'))).toEqual([]);
  await page.getByRole('tab', { name: 'Raw' }).click();
  await page.getByRole('tab', { name: 'Raw' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Checks' }).getAttribute('aria-selected')).resolves.toBe('true');
  await page.getByRole('heading', { name: /^Sender/, level: 2 }).waitFor({ timeout: 60_000 });
  expect(requested.filter((url) => url.includes('/checks')).map((url) => new URL(url).search)).toEqual(['']);
}, 90_000);

it('shows every section of the API with its status, reason and findings; each result is a word, not only a colour', async () => {
  const { sections } = (await checksOf()).body as unknown as MessageChecks;
  const panel = page.getByRole('tabpanel');
  const shown = await panel.locator('section.check-section').evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.section));
  expect(shown).toEqual(Object.keys(sections));
  for (const [name, section] of Object.entries(sections)) {
    const region = panel.getByRole('region', { name: new RegExp(`^${name} ${section.status}$`, 'i') });
    await expect(region.count()).resolves.toBe(1);
    if (section.reason !== null) await expect(region.locator('.reason').textContent()).resolves.toBe(section.reason);
    const rows = await region.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((cell) => (cell as HTMLElement).innerText.trim())));
    // Each row: the result as a word (after a decorative symbol), the check's id, the detail, in the API's order.
    expect(rows.map(([result, id, detail]) => [result.replace(/^\S+\s/, ''), id, detail])).toEqual(section.findings.map((f) => [f.result, f.id, f.detail]));
    await expect(panel.getByRole('list', { name: 'Checks summary' }).getByText(new RegExp(`^${name}: ${section.status}, `, 'i')).count()).resolves.toBe(1);
  }
  // The flaws, readable without colour: the words fail and warn in their rows.
  const sender = panel.getByRole('region', { name: /^Sender/ });
  await expect(sender.getByRole('row', { name: /fail date no Date header/ }).count()).resolves.toBe(1);
  await expect(sender.getByRole('row', { name: /warn message-id / }).count()).resolves.toBe(1);
  await page.screenshot({ path: path.join(ARTIFACTS, '10-message-checks.png'), fullPage: true });
}, 60_000);

it("shows a detail that quotes the mail's markup as text: nothing of it runs or renders", async () => {
  const panel = page.getByRole('tabpanel');
  const cell = panel.getByRole('row', { name: /message-id/ }).locator('td').last();
  await expect(cell.textContent()).resolves.toBe(`Message-ID is not of the form <left@right>: ${HOSTILE_MESSAGE_ID}`);
  await expect(panel.locator('img').count()).resolves.toBe(0);
  expect(await page.title()).not.toBe('1');
});

it('passes axe-core in light and in dark mode', async () => {
  await axeScan(page, 'message-checks');
  await page.emulateMedia({ colorScheme: 'dark' });
  await axeScan(page, 'message-checks-dark');
  await page.screenshot({ path: path.join(ARTIFACTS, '10-message-checks-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
});

it('"Check links too" asks for ?links=true and shows what the API answers to it', async () => {
  await page.getByRole('button', { name: 'Check links too' }).click();
  const reply = await checksOf('?links=true');
  const panel = page.getByRole('tabpanel');
  if (reply.status === 200) {
    const { sections } = reply.body as unknown as MessageChecks;
    await panel.getByRole('heading', { name: /^Links/, level: 2 }).waitFor({ timeout: 60_000 });
    const shown = await panel.locator('section.check-section').evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.section));
    expect(shown).toEqual(Object.keys(sections));
  } else {
    const message = (reply.body as { error: { message: string } }).error.message;
    await panel.getByText(`The links could not be checked: ${message} (HTTP ${reply.status})`).waitFor();
    await expect(panel.getByRole('region', { name: /^Sender/ }).count()).resolves.toBe(1); // the first answer stays
  }
  expect(requested.filter((url) => url.includes('/checks')).map((url) => new URL(url).search)).toEqual(['', '?links=true']);
}, 90_000);
