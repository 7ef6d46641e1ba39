/**
 * The prefix a router matched, as the request spelled it: a prefix pattern without parameters is
 * itself; one with parameters (`/t/:tenant`) is as many leading segments of the request's path as
 * the pattern has (a parameter matches one segment). For adapters whose framework reports the
 * pattern it mounted them under (a `@koa/router` prefix, a Fastify plugin's `prefix`).
 */
export function matchedPrefix(pattern: string, path: string): string {
  const prefix = pattern.replace(/\/+$/, '');
  if (!/[:*{(]/.test(prefix)) return prefix;
  const segments = prefix.split('/').filter(Boolean).length;
  return `/${path.split('/').filter(Boolean).slice(0, segments).join('/')}`;
}
