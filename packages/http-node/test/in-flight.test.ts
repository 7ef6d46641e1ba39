// @module-tag socket
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
// An internal of this package (createNodeServer keeps its responses in flight in it).
import { InFlight } from '../src/in-flight.ts';

describe('InFlight', () => {
  it('holds what was added until it is removed, removing each item once however often asked', () => {
    const inFlight = new InFlight<{ n: number }>();
    const [a, b, c] = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const removeA = inFlight.add(a);
    const removeB = inFlight.add(b);
    expect(new Set(inFlight)).toEqual(new Set([a, b]));
    removeA();
    removeA();
    const removeC = inFlight.add(c);
    // A second removal of `a` must not free the slot `c` now holds.
    removeA();
    expect(new Set(inFlight)).toEqual(new Set([b, c]));
    removeB();
    removeC();
    expect([...inFlight]).toEqual([]);
  });

  // The reason it is not a Set: an old Set's rebuilt tables keep what passed through it alive through
  // every scavenge until a full GC. Measured in a process of its own, with explicit GCs.
  it('lets a scavenge collect what passed through it, even once the registry is old', () => {
    const script = `
      import { getHeapSpaceStatistics } from 'node:v8';
      const { InFlight } = await import(${JSON.stringify(new URL('../src/in-flight.ts', import.meta.url).href)});
      const inFlight = new InFlight();
      for (let i = 0; i < 100; i++) inFlight.add({ warm: i })();
      gc(); gc(); // the registry and its storage are old now, as in a server after its first seconds
      const oldUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
      const before = oldUsed();
      const removers = [];
      for (let i = 0; i < 2000; i++) {
        removers.push(inFlight.add({ payload: new Array(250).fill(i) })); // ~2 KB each, 4 MB in all
        if (removers.length > 20) removers.shift()(); // twenty in flight at once
      }
      for (const remove of removers) remove();
      removers.length = 0;
      gc({ type: 'minor' });
      gc({ type: 'minor' });
      console.log(oldUsed() - before);
    `;
    const promoted = Number(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script]).toString());
    // With a Set in its place, about 2 MB (half of it) is promoted.
    expect(promoted).toBeLessThan(256 * 1024);
  });
});
