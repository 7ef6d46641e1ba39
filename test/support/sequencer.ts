import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { taggedAsWhole } from './tags.ts';

/**
 * The order the files start in: those tagged as a whole with one of TAGS first, each part in
 * vitest's own order (the longest in its last run first; the largest first when it has no record).
 *
 * Why: a clean clone, as CI runs, has no record of a last run, and the largest files are not the
 * longest. The Postgres package's store contract is 1.8 KB of code that runs 318 cases, each on a
 * fresh database (152 s); started last, it ran alone for the last 108 s of a 528 s run (2026-12-07,
 * 16:38 UTC). The whole-file tags name what makes a file long: a database, processes, a browser.
 */
export class TaggedFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const tagged = new Set(ordered.filter((spec) => taggedAsWhole(spec.moduleId)));
    return [...tagged, ...ordered.filter((spec) => !tagged.has(spec))];
  }
}
