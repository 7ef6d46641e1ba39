/**
 * Log lines are bounded: a client chooses its path, user agent and headers (up to node's 16 KB), and
 * the server's one line per request must not carry them whole. Run as `pnpm start` runs, so the
 * server's own logger writes the lines.
 */
// @module-tag process
import { describe, expect, it } from 'vitest';
import { poll } from '../support/poll.ts';
import { spawnServer } from '../support/server-process.ts';

describe('log lines', () => {
  it('cut a 15,000-byte unknown path, noting its length', async (ctx) => {
    const app = await spawnServer({ STORE: 'memory' });
    ctx.onTestFinished(() => app.stop());
    const path = `/${'x'.repeat(14_999)}`;
    const res = await fetch(`${app.url}${path}`);
    expect(res.status).toBe(404);
    await res.arrayBuffer();
    const line = (out: string) => out.split('\n').find((l) => l.includes('"status":404'));
    const found = await poll(async () => line(app.output()), (l) => l !== undefined, 10_000);
    expect(found, app.output().slice(0, 2_000)).toBeDefined();
    expect(found!.length).toBeLessThan(2_048);
    expect((JSON.parse(found!) as { path: string }).path).toMatch(/^\/x+…\(15000 chars\)$/);
    for (const l of app.output().split('\n')) expect(l.length).toBeLessThan(4_096);
  });
});
