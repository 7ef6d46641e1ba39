/**
 * What a process renders once for each place (base URL, mount) and service name, and keeps: the
 * discovery documents' bytes depend on nothing else, and rendering them costs from a millisecond to
 * ten a time. A few places at most in a process, the oldest going past PLACES: a request's own Host
 * names the place when no PUBLIC_URL is set, so the bound keeps such requests from growing the memory.
 */
const PLACES = 16;

/** `cache`'s value for `key` (everything the value depends on), rendered by `render` when missing. */
export function renderedOnce<T>(cache: Map<string, T>, key: readonly unknown[], render: () => T): T {
  const id = JSON.stringify(key);
  let value = cache.get(id);
  if (value === undefined) {
    value = render();
    if (cache.size >= PLACES) cache.delete(cache.keys().next().value!);
    cache.set(id, value);
  }
  return value;
}
