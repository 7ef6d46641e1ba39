import { describe, expect, it } from 'vitest';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { MCP_PROTOCOL_VERSIONS } from '@sl-accounts/service/mcp';
import { lazily } from '../src/lazily.ts';
import { MODERN_REVISION } from '../src/protocol.ts';

describe('lazily', () => {
  it('runs the load once for concurrent callers and for every caller after it succeeded', async () => {
    let runs = 0;
    let finish!: (value: string) => void;
    const get = lazily(() => {
      runs++;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    const first = [get(), get(), get()];
    expect(runs).toBe(1);
    finish('loaded');
    expect(await Promise.all(first)).toEqual(['loaded', 'loaded', 'loaded']);
    expect(await get()).toBe('loaded');
    expect(runs).toBe(1);
  });

  it('shares a failure with the callers waiting for it, and runs the load again for the next caller', async () => {
    let runs = 0;
    let fail!: (error: Error) => void;
    const get = lazily(() => {
      runs++;
      return runs === 1 ? new Promise<string>((_, reject) => (fail = reject)) : Promise.resolve('loaded');
    });
    const waiting = [get(), get()];
    fail(new Error('no SDK'));
    for (const result of await Promise.allSettled(waiting)) expect(result).toMatchObject({ status: 'rejected', reason: { message: 'no SDK' } });
    expect(runs).toBe(1);
    expect(await get()).toBe('loaded');
    expect(runs).toBe(2);
  });
});

describe('MCP_PROTOCOL_VERSIONS', () => {
  // Written out so that the server card needs no SDK; this holds it to the SDK it runs on.
  it('is the modern revision, then the SDK’s revisions from 2025-03-26 (Streamable HTTP) on, newest first', () => {
    const fromSdk = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= '2025-03-26' && v < MODERN_REVISION).toSorted().reverse();
    expect(MCP_PROTOCOL_VERSIONS).toEqual([MODERN_REVISION, ...fromSdk]);
  });
});
