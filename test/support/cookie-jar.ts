/**
 * Cookies as a browser keeps and sends them, as far as the suites need: by name and `Path` (RFC 6265
 * 5.1.4's path-match), replaced by a later cookie of the same name and path, dropped by `Max-Age=0`.
 * So a test sees what a browser would send back, where a cookie's `Path` decides it.
 */
export class CookieJar {
  readonly #cookies = new Map<string, { readonly name: string; readonly value: string; readonly path: string }>();

  /** Takes the `Set-Cookie` lines of an answer to a request for `requestPath`. */
  store(setCookies: readonly string[], requestPath: string): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      // RFC 6265 5.1.4: without a Path, the request path up to its last slash.
      const path = attribute('path') ?? (requestPath.slice(0, requestPath.lastIndexOf('/')) || '/');
      const key = `${name};${path}`;
      if (attribute('max-age') === '0') this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  /** The Cookie header a browser sends with a request for `requestPath` (longer paths first), or `undefined`. */
  header(requestPath: string): string | undefined {
    const matching = [...this.#cookies.values()].filter(({ path }) => pathMatches(requestPath, path)).sort((a, b) => b.path.length - a.path.length);
    return matching.length > 0 ? matching.map(({ name, value }) => `${name}=${value}`).join('; ') : undefined;
  }
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath.charAt(cookiePath.length) === '/';
}
