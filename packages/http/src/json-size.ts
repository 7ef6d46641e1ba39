/**
 * What the contract's body rules need of a value a host's parser already made (express.json(),
 * Fastify's default parser): how many bytes `JSON.stringify(value)` would be as UTF-8, and whether a
 * string in it holds U+FFFD. Computed with a stack of its own, never by recursion: V8's
 * `JSON.stringify` recurses, and a body nested a few thousand deep (`[[[[…]]]]`, 10 KB of JSON, which
 * `JSON.parse` reads without trouble) made it throw a RangeError, a 500 where the contract's own
 * parser answers 400. Stops counting once the size passes `limit`, so a huge or cyclic value
 * (a host's own object, not JSON) costs no more than `limit` bytes' worth of walking.
 */

/** What `measureJson` found. */
export interface JsonMeasure {
  /** UTF-8 bytes of the value's JSON text; past `limit`, some number above it. */
  readonly bytes: number;
  /** Whether a string (a key or a value) holds U+FFFD. */
  readonly replacement: boolean;
}

/** One array or object being walked: its keys (`null` for an array), where the walk is, and whether a member was written. */
interface Frame {
  readonly container: Readonly<Record<string, unknown>> | readonly unknown[];
  readonly keys: readonly string[] | null;
  readonly length: number;
  next: number;
  written: boolean;
}

/** Values `JSON.stringify` leaves out of an object and writes as `null` in an array. */
const omitted = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

export function measureJson(value: unknown, limit: number): JsonMeasure {
  let bytes = 0;
  let replacement = false;
  const stack: Frame[] = [];

  const text = (s: string): number => {
    if (s.includes('\uFFFD')) replacement = true;
    // A string alone never recurses; its JSON form carries the escapes the size must count.
    return Buffer.byteLength(JSON.stringify(s));
  };
  const write = (v: unknown): void => {
    if (v === null || omitted(v)) bytes += 4; // `null`
    else if (typeof v === 'boolean') bytes += v ? 4 : 5;
    else if (typeof v === 'number') bytes += Number.isFinite(v) ? String(v).length : 4;
    else if (typeof v === 'bigint') bytes += String(v).length;
    else if (typeof v === 'string') bytes += text(v);
    else if (Array.isArray(v)) {
      bytes += 1;
      stack.push({ container: v, keys: null, length: v.length, next: 0, written: false });
    } else {
      const record = v as Readonly<Record<string, unknown>>;
      const keys = Object.keys(record);
      bytes += 1;
      stack.push({ container: record, keys, length: keys.length, next: 0, written: false });
    }
  };

  if (omitted(value)) return { bytes: 0, replacement: false };
  write(value);
  while (stack.length > 0 && bytes <= limit) {
    const frame = stack.at(-1)!;
    if (frame.next === frame.length) {
      bytes += 1; // `]` or `}`
      stack.pop();
      continue;
    }
    const index = frame.next++;
    if (frame.keys === null) {
      if (frame.written) bytes += 1; // `,`
      frame.written = true;
      write((frame.container as readonly unknown[])[index]);
    } else {
      const key = frame.keys[index]!;
      const member = (frame.container as Readonly<Record<string, unknown>>)[key];
      if (omitted(member)) continue;
      if (frame.written) bytes += 1;
      frame.written = true;
      bytes += text(key) + 1; // `"key":`
      write(member);
    }
  }
  return { bytes, replacement };
}
