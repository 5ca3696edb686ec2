/**
 * Debian's chromium, driven headless through playwright-core (no browser download). One browser for the suite, a
 * fresh page (cookies cleared) per scenario. When a scenario fails, a screenshot of its page and what the console
 * said are kept under ARTIFACTS_DIR, which CI keeps as artifacts.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Where failed scenarios leave their screenshot and console log: `GAVEL_TEST_BROWSER_ARTIFACTS`, else this folder. */
export const ARTIFACTS_DIR = resolve(process.env.GAVEL_TEST_BROWSER_ARTIFACTS ?? 'artifacts/browser-suite');

/** Empties the artifacts folder at the start of a run, so that what it holds afterwards is this run's failures. */
export function clearArtifacts(): void {
  rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
}

export function chromiumInstalled(): boolean {
  return existsSync(CHROMIUM);
}

/**
 * The suite's browser: one persistent profile, as a user's browser is (a fresh context would be incognito, which
 * blocks third-party cookies whatever the setting).
 */
export interface SuiteBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<SuiteBrowser> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'gavel-browser-suite-'));
  // This Chromium blocks third-party cookies by default, and Gavel's `uids` cookie is one on a publisher's page: the
  // profile allows them, as a user who allows them has it (cookie sync cannot work in a browser that blocks them).
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    // The TLS proxy's certificate is self-signed for the run: trusted as a publisher's browser trusts a real one.
    ignoreHTTPSErrors: true,
    viewport: { width: 1000, height: 700 },
  });
  // Tests never leave 127.0.0.1: a request elsewhere (an adapter's real sync URL, a CDN) is refused here.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (route) => route.abort('blockedbyclient'));
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A page, with no cookies left from the scenario before, and everything its console said (`type: text`). */
export interface ScenarioPage {
  context: BrowserContext;
  page: Page;
  console: string[];
}

export async function openPage(browser: SuiteBrowser): Promise<ScenarioPage> {
  const { context } = browser;
  await context.clearCookies();
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
