/**
 * Chromium for the viewer's browser tests and benchmark, driven by playwright-core (which downloads no browser).
 * The executable: CHROMIUM_PATH, else the first of chromium / chromium-browser / google-chrome(-stable) on PATH.
 * On CI `.ci/run` installs Debian's chromium when none is there; elsewhere point CHROMIUM_PATH at an installed
 * Chrome or Chromium (README, Testing).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

export function chromiumPath(): string {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`CHROMIUM_PATH=${given} does not exist`);
    return given;
  }
  for (const name of CANDIDATES) {
    try {
      const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (found) return found;
    } catch {
      // not on PATH
    }
  }
  throw new Error(`no Chromium found: install chromium (Debian: apt-get install chromium) or set CHROMIUM_PATH to a Chrome/Chromium executable`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
