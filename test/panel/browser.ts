import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core (no browser download). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Every browser test saves what it saw here (gitignored), for a reviewer to look at. */
export const SCREENSHOT_DIR = process.env.PANEL_SCREENSHOT_DIR ?? path.resolve(__dirname, 'screenshots');

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

export function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A context per user and viewport; every confirmation dialog is accepted (tests that refuse one say so). */
export async function openContext(browser: Browser, viewport: ViewportName): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORTS[viewport], deviceScaleFactor: 1 });
  context.on('page', (page) => page.on('dialog', (dialog) => void dialog.accept()));
  return context;
}

export async function signIn(page: Page, baseUrl: string, email: string, password: string, next = '/panel/accounts'): Promise<void> {
  await page.goto(`${baseUrl}${next}`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** The page itself never scrolls sideways (wide tables scroll inside their own box). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    // test/ compiles without the DOM library: the one shape needed here.
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** Whether anything from data ran as script (the hostile name sets this global if inserted as HTML). */
export async function pwned(page: Page): Promise<boolean> {
  return page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned !== undefined);
}
