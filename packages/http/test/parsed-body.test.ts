/**
 * The body rules on a value a host's parser already made (`hostBody: { parsed }`, as behind
 * express.json()): the same size limit as the contract's own parser, measured exactly and without
 * recursion, so any depth JSON.parse reads is answered like any other body (issue 25).
 */
import { describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES, HttpError, readJsonBody } from '@sl-accounts/service/http';

const read = (parsed: unknown) =>
  readJsonBody({ method: 'POST', url: '/api/login', headers: { 'content-type': 'application/json' }, remoteAddress: undefined, body: null, hostBody: { parsed } });

const statusOf = async (parsed: unknown) => {
  try {
    await read(parsed);
    return 'read';
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
};

/** A value nested `depth` deep, built without recursion (as a parser would). */
function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

/** `value` padded with a string member or element so its JSON is exactly `bytes` long. */
function ofSize(shape: (padding: string) => unknown, bytes: number): unknown {
  const base = Buffer.byteLength(JSON.stringify(shape('')));
  const value = shape('x'.repeat(bytes - base));
  expect(Buffer.byteLength(JSON.stringify(value))).toBe(bytes);
  return value;
}

describe('a body a host parsed first', () => {
  it('is read at any depth JSON.parse reads, where JSON.stringify would throw', async () => {
    for (const depth of [5_000, 30_000]) {
      const arrays = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;
      expect(() => JSON.stringify(arrays)).toThrow(RangeError);
      await expect(read(arrays)).resolves.toBe(arrays);
    }
    const objects = nested(10_000, (inner) => ({ a: inner }));
    await expect(read(objects)).resolves.toBe(objects);
  });

  it('is measured as JSON.stringify would write it, to the byte: at the limit it is read, one byte over it is 413', async () => {
    const shapes: ((padding: string) => unknown)[] = [
      (p) => ({ email: 'ada@example.com', password: p }),
      (p) => [1, -2.5e-7, true, false, null, 'é€𝄞', { 'k\u00e9y': [p] }],
      (p) => ({ a: [undefined, () => 1, Symbol('s')], b: undefined, c: () => 1, d: Number.NaN, e: Infinity, f: p }),
      (p) => ({ quote: '"\\\n\t\u0001\u2028\ud800', padding: p, nested: [[[], {}], { x: [{}] }] }),
    ];
    for (const shape of shapes) {
      expect(await statusOf(ofSize(shape, BODY_LIMIT_BYTES))).toBe('read');
      expect(await statusOf(ofSize(shape, BODY_LIMIT_BYTES + 1))).toBe(413);
    }
    // Deep and large: the walk stops at the limit.
    expect(await statusOf(nested(40_000, (inner) => [inner]))).toBe(413);
  });

  it('stops at the limit on a value that is no JSON at all (a cycle) instead of walking forever', async () => {
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(await statusOf(cycle)).toBe(413);
    const wide = { many: Array.from({ length: 1_000_000 }, () => 1) };
    expect(await statusOf(wide)).toBe(413);
  });

  it('refuses U+FFFD in a key or a value as not UTF-8, as in text the host decoded', async () => {
    expect(await statusOf({ email: 'a\uFFFDb@example.com', password: 'x' })).toBe(400);
    expect(await statusOf({ ['k\uFFFD']: 'x' })).toBe(400);
    expect(await statusOf(nested(5_000, (inner) => [inner, '\uFFFD']))).toBe(400);
  });
});
