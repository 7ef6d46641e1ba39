/**
 * The discovery resources as a table of documents, each a function of the request and the base URL.
 * The route handler of `createHttpApi` serves them like the API operations, for every host alike.
 */
import type { HttpAnswer, HttpRequest } from '../http-types.ts';
import { API_ROUTES } from '../routes.ts';
import { createSkills, skillsIndex } from './agent-skills.ts';
import { API_CATALOG_LINK, API_CATALOG_PATH, API_CATALOG_TYPE, apiCatalog } from './api-catalog.ts';
import { apiReferenceDocuments } from './api-reference.ts';
import { authMarkdown } from './auth-md.ts';
import { openApiDocument } from './openapi.ts';
import { SERVICE_INDEX_PATH, serviceIndexAnswer } from './service-index.ts';

/** A read-only resource served with GET and HEAD. */
export interface DocumentRoute {
  readonly path: string;
  /** Public documents: any origin may read them from a browser (CORS `*`, preflight answered). */
  readonly cors?: boolean;
  /**
   * Whether the document is written from the base URL. Without `PUBLIC_URL` such a document takes
   * it from the request (`Host`, or trusted forwarded headers), answers 400 when that is not a
   * valid host, and sends `Vary` for those headers. Other documents get a placeholder base.
   */
  readonly usesBase?: boolean;
  /** The name under which `GET /` links the document, if it does. */
  readonly indexAs?: string;
  /**
   * The answer; a 200 gets an `ETag` and a `Cache-Control` unless it sets its own (see
   * `withValidators`), and its own `Vary` is kept beside the origin's.
   */
  render(request: HttpRequest, base: string): HttpAnswer | Promise<HttpAnswer>;
}

/** A document answer: status 200 with the type and any further headers. */
export function documentAnswer(type: string, body: string | Uint8Array, headers: Record<string, string> = {}): HttpAnswer {
  return { status: 200, headers: { 'content-type': type, ...headers }, body };
}

export interface DiscoveryOptions {
  readonly publicUrl: string | undefined;
  readonly serviceName: string;
  /** The mount path ('' for the root): the docs page's scripts and `GET /`'s redirect point into it. */
  readonly basePath?: string;
  /** Further documents (the MCP server card); `GET /` links those with `indexAs` too. */
  readonly extra?: readonly DocumentRoute[] | undefined;
}

/** Every document: the discovery resources, the API reference, `extra`, and `GET /` linking them. */
export function discoveryDocuments(options: DiscoveryOptions): DocumentRoute[] {
  const { publicUrl, serviceName, basePath = '' } = options;
  const skills = createSkills(publicUrl, serviceName, basePath);
  const MARKDOWN = 'text/markdown; charset=utf-8';
  const documents: DocumentRoute[] = [
    {
      path: '/openapi.json',
      cors: true,
      usesBase: true,
      indexAs: 'openapi',
      render: (_, base) => documentAnswer('application/openapi+json', JSON.stringify(openApiDocument(base, serviceName))),
    },
    ...apiReferenceDocuments(serviceName, basePath).map((document, i) => (i === 0 ? { ...document, indexAs: 'docs' } : document)),
    {
      path: API_CATALOG_PATH,
      cors: true,
      usesBase: true,
      indexAs: 'apiCatalog',
      render: (_, base) => documentAnswer(API_CATALOG_TYPE, JSON.stringify(apiCatalog(base)), { link: API_CATALOG_LINK }),
    },
    { path: '/auth.md', cors: true, usesBase: true, indexAs: 'authGuide', render: (_, base) => documentAnswer(MARKDOWN, authMarkdown(base, serviceName)) },
    {
      path: '/.well-known/agent-skills/index.json',
      cors: true,
      usesBase: true,
      indexAs: 'agentSkills',
      render: (_, base) => documentAnswer('application/json; charset=utf-8', JSON.stringify(skillsIndex(skills, base))),
    },
    ...skills.map((skill): DocumentRoute => ({
      path: `/.well-known/agent-skills/${skill.name}/SKILL.md`,
      cors: true,
      render: () => documentAnswer(MARKDOWN, skill.body),
    })),
    ...(options.extra ?? []),
  ];
  const health = API_ROUTES.find((route) => route.operationId === 'getHealth')!.path;
  const links = Object.fromEntries([...documents.flatMap((d) => (d.indexAs ? [[d.indexAs, d.path]] : [])), ['health', health]]);
  return [
    { path: SERVICE_INDEX_PATH, cors: true, usesBase: true, render: (request, base) => serviceIndexAnswer(request, base, serviceName, links, basePath) },
    ...documents,
  ];
}
