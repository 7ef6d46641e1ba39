/**
 * The order `pnpm test` starts its files in (vitest.config.ts): the files tagged as a whole first,
 * so a short file with hundreds of database cases does not start last and run alone at the end.
 * (Not in the unit run, whose config has vitest's own order: it would load `vitest/node` there,
 * 0.4 s of CPU, for a case about this run.)
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BaseSequencer, type TestSpecification, type Vitest } from 'vitest/node';
import { TaggedFilesFirst } from './support/sequencer.ts';
import { taggedAsWhole } from './support/tags.ts';

const file = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
/** What vitest's own sequencer reads of a file's specification. */
const spec = (path: string) => ({ moduleId: file(path), project: { name: '', config: { sequence: { groupOrder: 0 }, isolate: false } } }) as unknown as TestSpecification;
/** A run with no record of a last one, as on a clean clone. */
const noRecord = { cache: { getTestSpecificationResult: () => undefined } } as unknown as Vitest;

const CONTRACT = 'packages/store-postgres/test/store-contract.test.ts'; // 1.8 KB, 318 database cases
const LARGE = 'test/discovery/openapi.test.ts'; // 38 KB, in-process
const SOCKETS = 'test/http/slow-readers.test.ts'; // 3 KB, a socket file tag

describe('the order pnpm test starts its files in', () => {
  it('reads the file tags as vitest does', () => {
    expect([CONTRACT, SOCKETS].map((path) => taggedAsWhole(file(path)))).toEqual([true, true]);
    expect(taggedAsWhole(file(LARGE))).toBe(false);
  });

  it('starts the files tagged as a whole first, where vitest alone would start the largest first', async () => {
    const specs = [LARGE, CONTRACT, SOCKETS].map(spec);
    const names = (ordered: TestSpecification[]) => ordered.map((s) => specs.indexOf(s));
    expect(names(await new BaseSequencer(noRecord).sort(specs))).toEqual([0, 2, 1]);
    expect(names(await new TaggedFilesFirst(noRecord).sort(specs))).toEqual([2, 1, 0]);
  });
});
