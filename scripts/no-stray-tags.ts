/**
 * The lint rule docs/no-stray-tags (eslint.config.js): TypeScript reads `@word` in a doc comment as a
 * tag wherever white space precedes it, so prose that names a package without backticks ends the
 * comment there in editors' hovers. test/docs/stray-tags.test.ts holds it to TypeScript's reading.
 */
import type { Rule } from 'eslint';

/** The tags a doc comment may hold; anything else after `@` is prose that wants backticks. */
const DOC_TAGS = new Set(['param', 'returns', 'throws', 'deprecated', 'see', 'example', 'default', 'remarks', 'internal', 'template', 'typeParam', 'link', 'linkcode', 'linkplain', 'inheritDoc', 'override', 'since']);

/**
 * `@name` after white space (or at a line's start) outside backticks, in a doc comment, where `name`
 * is no tag: TypeScript would read it as one. `ada@example.com` and `{@link x}` pass.
 */
export const noStrayTags: Rule.RuleModule = {
  meta: { type: 'problem', schema: [], messages: { stray: '"@{{name}}" in a doc comment is read as a tag: put it in backticks (`@{{name}}`).' } },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          if (comment.type !== 'Block' || !comment.value.startsWith('*')) continue;
          const text = comment.value.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
          for (const match of text.matchAll(/(?<=^|\s)@([^\s{}()[\],:;.]+)/g)) {
            const name = match[1]!;
            if (DOC_TAGS.has(name)) continue;
            const start = comment.range![0] + 2 + match.index;
            context.report({ loc: { start: context.sourceCode.getLocFromIndex(start), end: context.sourceCode.getLocFromIndex(start + match[0].length) }, messageId: 'stray', data: { name } });
          }
        }
      },
    };
  },
};
