/**
 * `/docs/api` under axe-core in headless Chromium (issue 40): the Scalar reference as the page
 * configures it (its contrast theme, its labels) has no critical or serious accessibility violation,
 * in the light scheme and the dark. axe-core is evaluated into the page over the DevTools protocol,
 * which the page's policy (scripts from its own origin only) does not govern, so the page is checked
 * with its real policy on.
 */
// @module-tag process
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunningServer } from '@sl-accounts/server';
import { browserNote, useChromium } from '../support/browser.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly unknown[]; readonly failureSummary?: string }[];
}

/** axe-core's violations on the page as it stands (WCAG 2 A and AA rules, and axe's best practices). */
async function violations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE_SOURCE);
  return (await page.evaluate('axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)')) as Violation[];
}

describe(`/docs/api under axe-core in headless Chromium${browserNote}`, () => {
  const { launched } = useChromium();
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ host: HOST_KINDS[0] });
  });
  afterAll(() => server?.close());

  it.for(['light', 'dark'] as const)('in the %s scheme: no critical and no serious violation (c9a1ff2: 2 critical, and 76 serious in light, 18 in dark)', { timeout: 90_000 }, async (scheme, ctx) => {
    const context = await launched(ctx).newContext({ colorScheme: scheme });
    const page = await context.newPage();
    await page.goto(`${server.url}/docs/api`, { waitUntil: 'networkidle' });
    // Rendered: the request samples, which Scalar renders last, are there.
    // (A function, not a string: the page's policy forbids eval, which a string predicate needs.)
    await page.waitForFunction(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText.includes('correct horse battery staple'), undefined, { timeout: 30_000 });
    // The copy buttons are there to be checked (the examples' code blocks), and they are named.
    expect(await page.locator('button.scalar-code-copy').count()).toBeGreaterThan(0);
    const found = await violations(page);
    const severe = found.filter((v) => v.impact === 'critical' || v.impact === 'serious');
    // Said in full when it fails: which rule, how many elements, and the first of them.
    expect(severe.map((v) => `${v.impact} ${v.id} ×${v.nodes.length}: ${String(v.nodes[0]?.target)} ${v.nodes[0]?.failureSummary ?? ''}`)).toEqual([]);
    await context.close();
  });
});
