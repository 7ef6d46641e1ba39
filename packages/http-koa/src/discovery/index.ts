/**
 * The spec's discovery resources and the MCP endpoint, as route callbacks for `createApp`'s
 * `extraRoutes`.
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import type { Logger } from 'pino';
import type { Accounts } from '@sl/core';
import { mcpRoutes } from '../mcp.ts';
import { createSkills, skillsIndex } from './agent-skills.ts';
import { API_CATALOG_LINK, API_CATALOG_PATH, API_CATALOG_TYPE, apiCatalog } from './api-catalog.ts';
import { apiReferenceRoutes } from './api-reference.ts';
import { authMarkdown } from './auth-md.ts';
import { baseUrlOf } from './base-url.ts';
import { openApiDocument } from './openapi.ts';
import { SERVER_CARD_PATHS, serverCard } from './server-card.ts';

export interface DiscoveryOptions {
  readonly accounts: Accounts;
  /** `PUBLIC_URL`: the absolute base URL; when unset, each request's origin. */
  readonly publicUrl?: string | undefined;
  readonly logger: Logger;
  readonly serviceName?: string;
}

/** Public, read-only documents: any origin may read them from a browser. */
function allowAnyOrigin(ctx: Context): void {
  ctx.set('Access-Control-Allow-Origin', '*');
}

function preflight(ctx: Context): void {
  allowAnyOrigin(ctx);
  ctx.set('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Accept');
  ctx.set('Access-Control-Max-Age', '86400');
  ctx.status = 204;
}

export function discoveryRoutes(options: DiscoveryOptions): ((router: Router) => void)[] {
  const { publicUrl } = options;
  const serviceName = options.serviceName ?? 'sl-accounts';
  const skills = createSkills(publicUrl, serviceName);
  const base = (ctx: Context) => baseUrlOf(ctx, publicUrl);

  const documents = (router: Router) => {
    router.get('/openapi.json', (ctx) => {
      allowAnyOrigin(ctx);
      ctx.type = 'application/openapi+json';
      ctx.body = JSON.stringify(openApiDocument(base(ctx), serviceName));
    });

    router.get(API_CATALOG_PATH, (ctx) => {
      allowAnyOrigin(ctx);
      ctx.set('Link', API_CATALOG_LINK);
      ctx.type = API_CATALOG_TYPE;
      ctx.body = JSON.stringify(apiCatalog(base(ctx)));
    });

    router.get('/auth.md', (ctx) => {
      allowAnyOrigin(ctx);
      ctx.type = 'text/markdown; charset=utf-8';
      ctx.body = authMarkdown(base(ctx), serviceName);
    });

    router.get('/.well-known/agent-skills/index.json', (ctx) => {
      allowAnyOrigin(ctx);
      ctx.body = skillsIndex(skills, base(ctx));
    });
    for (const skill of skills) {
      router.get(`/.well-known/agent-skills/${skill.name}/SKILL.md`, (ctx) => {
        allowAnyOrigin(ctx);
        ctx.type = 'text/markdown; charset=utf-8';
        ctx.body = skill.body;
      });
    }

    for (const path of SERVER_CARD_PATHS) {
      router.get(path, (ctx) => {
        allowAnyOrigin(ctx);
        ctx.body = serverCard(base(ctx), serviceName);
      });
      router.options(path, preflight);
    }
  };

  return [documents, apiReferenceRoutes(serviceName), mcpRoutes({ ...options, serviceName })];
}
