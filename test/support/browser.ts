/**
 * Headless Chromium for a browser suite: launched once in `beforeAll` when one is found (see
 * chromium.ts), else each case is skipped with the reason, and under CI=true fails instead.
 */
import { afterAll, beforeAll, type TestContext } from 'vitest';
import { chromium as playwright, type Browser } from 'playwright-core';
import { INSTALL_CHROMIUM, browserRequired, findChromium } from './chromium.ts';

const chromium = findChromium();
const required = browserRequired();

/** What a suite's title says when the browser is missing; '' when it is there. */
export const browserNote = 'missing' in chromium ? ` (${required ? 'required: CI=true' : `skipped: ${chromium.missing}`})` : '';

/** Registers the launch and close in the enclosing `describe`; `launched(ctx)` gives the browser or skips the case. */
export function useChromium(): { launched(ctx: TestContext): Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if ('missing' in chromium) {
      if (required) throw new Error(`CI=true requires the browser tests, but ${chromium.missing}: ${INSTALL_CHROMIUM}.`);
      return;
    }
    browser = await playwright.launch({
      executablePath: chromium.path,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(() => browser?.close());
  return {
    launched(ctx) {
      if (!browser) ctx.skip(`${'missing' in chromium ? chromium.missing : 'no browser'}; to run it, ${INSTALL_CHROMIUM}`);
      return browser!;
    },
  };
}
