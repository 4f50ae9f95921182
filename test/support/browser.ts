import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (tools/test-deps.sh installs it); Playwright's own browser download is not used. */
const CHROMIUM = process.env['CORRAL_CHROMIUM'] ?? '/usr/bin/chromium';
/** Where the browser tests leave their screenshots (git-ignored, with the rest of `var/`). */
export const SCREENSHOTS = resolve('var/console-screenshots');

export async function launchBrowser(): Promise<Browser> {
  await mkdir(SCREENSHOTS, { recursive: true });
  // As root, Chromium runs only without its sandbox.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** A fresh browser profile (no cookie, no stored session) on the control plane's self-signed certificate. */
export function newContext(browser: Browser, viewport = { width: 1280, height: 720 }): Promise<BrowserContext> {
  return browser.newContext({ ignoreHTTPSErrors: true, viewport, colorScheme: 'light' });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** Logs in through the console's login form. */
export async function logIn(page: Page, origin: string, username: string, password: string): Promise<void> {
  await page.goto(`${origin}/`);
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}
