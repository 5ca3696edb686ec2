/**
 * Debian's chromium, driven headless through playwright-core (no browser download). One browser for the suite, a
 * fresh context (no cookies) per scenario. When a scenario fails, a screenshot of its page and what the console
 * said are kept under ARTIFACTS_DIR, which CI keeps as artifacts.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Where failed scenarios leave their screenshot and console log: `GAVEL_BROWSER_ARTIFACTS`, else this folder. */
export const ARTIFACTS_DIR = resolve(process.env.GAVEL_BROWSER_ARTIFACTS ?? 'artifacts/browser-suite');

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM);
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page in a fresh context, and everything its console said (`type: text`). */
export interface ScenarioPage {
  context: BrowserContext;
  page: Page;
  console: string[];
}

export async function openPage(browser: Browser): Promise<ScenarioPage> {
  // The TLS proxy's certificate is self-signed for the run: the context trusts it as a publisher's browser trusts a real one.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1000, height: 700 } });
  const page = await context.newPage();
  const console: string[] = [];
  page.on('console', (message) => console.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => console.push(`pageerror: ${error.message}`));
  return { context, page, console };
}

/** A file-system-safe name for a scenario's artifacts. */
function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80);
}

/** Keeps the failed scenario's screenshot and console; answers the paths written. */
export async function keepArtifacts(title: string, scenario: ScenarioPage): Promise<string[]> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const base = join(ARTIFACTS_DIR, slug(title));
  const written: string[] = [];
  try {
    await scenario.page.screenshot({ path: `${base}.png`, fullPage: true });
    written.push(`${base}.png`);
  } catch {
    // A page that crashed has no screenshot; its console still tells why.
  }
  writeFileSync(`${base}.console.txt`, scenario.console.join('\n') + '\n');
  written.push(`${base}.console.txt`);
  return written;
}
