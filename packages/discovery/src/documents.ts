/**
 * The discovery resources as a table of documents, each a function of the request and the base URL,
 * for the `documents` option of `createHttpApi`, which serves them beside the API operations in
 * every host alike.
 */
import { DEFAULT_SERVICE_NAME } from '@sl-accounts/service/core';
import { API_ROUTES, normaliseBasePath, type DocumentRoute, type HttpAnswer } from '@sl-accounts/service/http';
import { createSkills, skillsIndex, type Skill } from './agent-skills.ts';
import { API_CATALOG_LINK, API_CATALOG_PATH, API_CATALOG_TYPE, apiCatalog } from './api-catalog.ts';
import { authMarkdown } from './auth-md.ts';
import type { DocsPage } from './docs-page.ts';
import { linkPages, type LinkPagesOptions } from './link-pages.ts';
import { openApiJson } from './openapi.ts';
import { renderedOnce } from './rendered-once.ts';
import { SERVICE_INDEX_PATH, serviceIndexAnswer } from './service-index.ts';
import { representationTag, withValidators } from './caching.ts';
import { documentAnswer } from './document-answer.ts';

/** What the documents say about the service, and where it is mounted and reached. */
export interface DiscoveryOptions {
  /** The service's absolute URL (`PUBLIC_URL`), as given to `createHttpApi`; else each request's origin. */
  readonly publicUrl?: string | undefined;
  /** The service's name in titles and the index; DEFAULT_SERVICE_NAME of the core when absent. */
  readonly serviceName?: string;
  /** The mount path, as given to `createHttpApi`: the docs page's scripts and `GET /`'s redirect point into it. */
  readonly basePath?: string;
  /**
   * The page for people, `apiReferencePage` of `@sl-accounts/docs-page`: served with its scripts,
   * linked by the index (`docs`) and the API catalog (`service-doc`), and where `GET /` sends a
   * browser. Absent (the default), there is no such page and nothing links to one.
   */
  readonly docsPage?: DocsPage | undefined;
  /**
   * The pages of the mailed links (`/verify-email`, `/reset-password`) to serve: those whose links
   * point at the service, because no front end of the operator's takes them. None by default.
   */
  readonly linkPages?: LinkPagesOptions | undefined;
  /** Further documents (the MCP server card): served alike, and linked by `GET /` when they have `indexAs`. */
  readonly extra?: readonly DocumentRoute[] | undefined;
}

/**
 * The skills of one service: their bytes depend on nothing else, and writing them is most of what a
 * service's start costs (1.4 s of test:unit's 34 s of CPU, one rendering per test server, profiled
 * on 2026-12-06).
 */
const renderedSkills = new Map<string, readonly Skill[]>();
const skillsFor = (publicUrl: string | undefined, serviceName: string, basePath: string) =>
  renderedOnce(renderedSkills, [publicUrl ?? null, serviceName, basePath], () => createSkills(publicUrl, serviceName, basePath));

/**
 * The answers of `/openapi.json` and `/auth.md`, encoded and tagged once for each base URL and name
 * (their texts are rendered once as well: `openApiJson`, `authMarkdown`). Each request rendered,
 * encoded and hashed them afresh: ~10 ms (the ~300 KB OpenAPI document) and ~2.8 ms of CPU, so 16
 * connections held a core at ~100 and ~390 answers a second (2026-12-07, `path-profile.ts start <path>`).
 */
const renderedAnswers = new Map<string, HttpAnswer>();
const renderedAnswer = (path: string, type: string, base: string, serviceName: string, text: (base: string, serviceName: string) => string) =>
  renderedOnce(renderedAnswers, [path, base, serviceName], () => {
    const body = Buffer.from(text(base, serviceName));
    return documentAnswer(type, body, { etag: representationTag(type, body) });
  });

/**
 * Every document, for `createHttpApi({ documents })`: the discovery resources, the docs page when
 * given, `extra`, and `GET /` linking them. Each 200 carries an `ETag` and a `Cache-Control`, and a
 * client whose copy is current gets 304 (see `withValidators`).
 */
export function discoveryDocuments(options: DiscoveryOptions = {}): DocumentRoute[] {
  const { publicUrl } = options;
  const serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  const basePath = normaliseBasePath(options.basePath);
  const skills = skillsFor(publicUrl, serviceName, basePath);
  const docs = options.docsPage?.({ serviceName, basePath });
  const MARKDOWN = 'text/markdown; charset=utf-8';
  const documents: DocumentRoute[] = [
    {
      path: '/openapi.json',
      cors: true,
      usesBase: true,
      indexAs: 'openapi',
      render: (_, base) => renderedAnswer('/openapi.json', 'application/openapi+json', base, serviceName, openApiJson),
    },
    ...(docs ? [{ ...docs.page, indexAs: 'docs' }, ...docs.assets] : []),
    {
      path: API_CATALOG_PATH,
      cors: true,
      usesBase: true,
      indexAs: 'apiCatalog',
      render: (_, base) => documentAnswer(API_CATALOG_TYPE, JSON.stringify(apiCatalog(base, docs?.page.path)), { link: API_CATALOG_LINK }),
    },
    { path: '/auth.md', cors: true, usesBase: true, indexAs: 'authGuide', render: (_, base) => renderedAnswer('/auth.md', MARKDOWN, base, serviceName, authMarkdown) },
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
    ...linkPages(basePath, serviceName, options.linkPages ?? {}),
    ...(options.extra ?? []),
  ];
  const health = API_ROUTES.find((route) => route.operationId === 'getHealth')!.path;
  const links = Object.fromEntries([...documents.flatMap((d) => (d.indexAs ? [[d.indexAs, d.path]] : [])), ['health', health]]);
  const all: DocumentRoute[] = [
    { path: SERVICE_INDEX_PATH, cors: true, usesBase: true, render: (request, base) => serviceIndexAnswer(request, base, serviceName, links, docs && `${basePath}${docs.page.path}`) },
    ...documents,
  ];
  return all.map((document) => ({ ...document, render: async (request, base) => withValidators(request, await document.render(request, base)) }));
}
