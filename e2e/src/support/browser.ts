import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from './start-gateway';

/** Where browser tests keep their screenshots (kept with the test output; not committed). */
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'e2e', 'output', 'console');

/** Debian's Chromium (`apt-get install chromium`; `infra/scripts/ensure-test-tools.sh` does). */
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The Chromium to drive: `CHROMIUM_PATH`, else Debian's. */
export function chromiumPath(): string {
  const configured = process.env['CHROMIUM_PATH'];
  if (configured !== undefined && configured !== '') return configured;
  const found = CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new Error(
      "No Chromium found for the browser tests: install Debian's `chromium` package (bash infra/scripts/ensure-test-tools.sh does) or set CHROMIUM_PATH.",
    );
  }
  return found;
}

/**
 * Starts the system Chromium headless through playwright-core (no browser download). As root the
 * browser's own sandbox cannot start, so it runs without it there (the test machine's own pages
 * only).
 */
export async function launchChromium(): Promise<Browser> {
  const asRoot = process.getuid?.() === 0;
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: asRoot ? ['--no-sandbox'] : [],
  });
}

/** Saves a full-page screenshot as `<name>.png` under {@link SCREENSHOT_DIR}; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
