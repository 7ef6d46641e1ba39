/**
 * The paths the service answers below one base path: the operations of the route table, the
 * documents, and `/mcp`. The contract keeps one for its own `basePath`, and one more for each prefix
 * a host's router mounts it under (see `HttpRequest.mountPath`).
 */
import type { DocumentRoute } from './document-route.ts';
import { API_ROUTES, type ApiRoute } from './routes/index.ts';

/** The path of the MCP endpoint below the base path. */
export const MCP_PATH = '/mcp';

export interface PathEntry {
  readonly operations: ReadonlyMap<string, ApiRoute>;
  readonly document?: DocumentRoute | undefined;
  /** Every method goes to the MCP endpoint. */
  readonly mcp?: boolean;
  /** `Allow` for this path, e.g. `HEAD, GET, OPTIONS`. */
  readonly allow: string;
}

export interface PathTable {
  /** The base path, normalised: '' for the root, else `/accounts` (no trailing slash). */
  readonly base: string;
  readonly entries: ReadonlyMap<string, PathEntry>;
  /** The entry of a path below the base, exact or by a `{name}` template, with the template's segments. */
  lookup(local: string): { readonly found: PathEntry | undefined; readonly params: Record<string, string> };
  /** The path below the base of a request path, or `null` when it is not under it (`/.well-known/` ones stay at the root). */
  localPath(path: string): string | null;
}

const NOT_FOUND = { found: undefined, params: {} } as const;

export function pathTable(base: string, documents: readonly DocumentRoute[], mcp: boolean): PathTable {
  const operations = new Map<string, Map<string, ApiRoute>>();
  for (const route of API_ROUTES) {
    let methods = operations.get(route.path);
    if (!methods) operations.set(route.path, (methods = new Map()));
    methods.set(route.method, route);
  }
  const entries = new Map<string, PathEntry>();
  const none: ReadonlyMap<string, ApiRoute> = new Map();
  for (const [path, methods] of operations) entries.set(path, { operations: methods, allow: allowOf([...methods.keys()]) });
  for (const document of documents) entries.set(document.path, { operations: entries.get(document.path)?.operations ?? none, document, allow: allowOf(['GET']) });
  if (mcp) entries.set(MCP_PATH, { operations: none, mcp: true, allow: '' });
  // Paths with `{name}` segments, tried in table order after an exact match failed.
  const templates = [...entries.keys()].filter((p) => p.includes('{')).map((template) => ({ template, ...pathPattern(template) }));

  return {
    base,
    entries,
    lookup(local) {
      const exact = entries.get(local);
      if (exact) return { found: exact, params: {} };
      for (const { template, pattern, names } of templates) {
        const match = pattern.exec(local);
        if (!match) continue;
        const params: Record<string, string> = {};
        try {
          names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1]!)));
        } catch {
          // A malformed percent-escape (bytes that are not UTF-8 among them) names no resource.
          return NOT_FOUND;
        }
        // Nor does a segment that decodes to U+0000 (`%00`), which no id holds and no database text takes.
        if (Object.values(params).some((value) => value.includes('\0'))) return NOT_FOUND;
        return { found: entries.get(template), params };
      }
      return NOT_FOUND;
    },
    localPath(path) {
      if (base === '') return path;
      if (path.startsWith(base)) {
        if (path.length === base.length) return '/';
        if (path.charCodeAt(base.length) === 47 /* '/' */) return path.slice(base.length);
      }
      return path.startsWith('/.well-known/') ? path : null;
    },
  };
}

/** `HEAD, GET, OPTIONS`: a path's methods, OPTIONS last, which every path answers (see api.ts). */
const allowOf = (methods: readonly string[]) => [...methods.flatMap((m) => (m === 'GET' ? ['HEAD', 'GET'] : [m])), 'OPTIONS'].join(', ');

/** A matcher for a path with `{name}` segments: each matches one non-empty segment. */
export function pathPattern(template: string): { readonly pattern: RegExp; readonly names: readonly string[] } {
  const names: string[] = [];
  const source = template
    .split('/')
    .map((segment) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (name === undefined) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names };
}
