/// <reference lib="dom" />
/**
 * axe-core in a page as it is now (the viewer's accessibility scans, test/e2e/viewer*.test.ts): fails on serious or
 * critical violations, naming each with the elements it found.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export async function axeScan(page: Page, screen: string): Promise<void> {
  await page.evaluate(AXE); // through the DevTools protocol: the page's CSP (no inline script) does not apply
  const result = await page.evaluate(() =>
    (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe.run(
      document,
      { resultTypes: ['violations'], iframes: false },
    ),
  );
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect([screen, bad.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`)]).toEqual([screen, []]);
}
