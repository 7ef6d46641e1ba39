/**
 * The character classes a name is checked against are written out as ranges, so the OpenAPI
 * document can publish them as they are; this holds them to the Unicode properties they stand for.
 */
import { expect, it } from 'vitest';
import { BIDI_CONTROLS, CONTROL_CHARACTERS, INVISIBLE_BMP_CHARACTERS, INVISIBLE_CHARACTERS, WHITE_SPACE } from '../src/schemas.ts';

it('the classes names are checked against (and the OpenAPI document publishes) are the Unicode properties they stand for, code point by code point', () => {
  const chunks: string[] = [];
  for (let start = 0; start < 0x110000; start += 0x1000) {
    const points = Array.from({ length: 0x1000 }, (_, i) => start + i).filter((c) => c < 0xd800 || c >= 0xe000);
    chunks.push(String.fromCodePoint(...points));
  }
  const all = chunks.join('');
  const matches = (source: string) => Array.from(all.matchAll(new RegExp(source, 'gu')), (m) => m.index);
  expect(matches(CONTROL_CHARACTERS)).toEqual(matches('\\p{Cc}'));
  // Bidi_Control also holds the marks (U+061C, U+200E, U+200F), which names may keep.
  expect(matches(BIDI_CONTROLS)).toEqual(matches('(?![\\u061C\\u200E\\u200F])\\p{Bidi_Control}'));
  expect(matches(INVISIBLE_CHARACTERS)).toEqual(matches('[\\p{White_Space}\\p{Default_Ignorable_Code_Point}]'));
  // What the OpenAPI document publishes for every regex dialect: the same up to U+FFFF, and JavaScript's own `\s`.
  expect(matches(INVISIBLE_BMP_CHARACTERS)).toEqual(matches('(?=[\\u0000-\\uFFFF])[\\p{White_Space}\\p{Default_Ignorable_Code_Point}]'));
  expect(INVISIBLE_BMP_CHARACTERS).not.toContain('\\u{');
  expect(matches(WHITE_SPACE)).toEqual(matches('\\s'));
});
