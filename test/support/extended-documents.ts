/**
 * A script (`node test/support/extended-documents.ts`): adds EXTRA_ROUTES to the route table before
 * the discovery package is loaded, and prints, as one JSON object, the documents it then writes for
 * a service at http://accounts.test/accounts: the OpenAPI document, auth.md and each SKILL.md. Run in
 * a process of its own, so the table of every other test stays as it is.
 */
import { API_ROUTES, type ApiRoute, type HttpRequest } from '@sl-accounts/service/http';
import { EXTRA_ROUTES } from './extra-routes.ts';

(API_ROUTES as ApiRoute[]).push(...EXTRA_ROUTES);
const { authMarkdown, discoveryDocuments, openApiDocument } = await import('@sl-accounts/service/discovery');

const BASE = 'http://accounts.test/accounts';
const skills: Record<string, string> = {};
for (const document of discoveryDocuments({ basePath: '/accounts' })) {
  const name = /^\/\.well-known\/agent-skills\/([^/]+)\/SKILL\.md$/.exec(document.path)?.[1];
  if (!name) continue;
  const request: HttpRequest = { method: 'GET', url: `/accounts${document.path}`, headers: { host: 'accounts.test' }, remoteAddress: '127.0.0.1', body: null };
  skills[name] = String((await document.render(request, BASE)).body);
}
process.stdout.write(JSON.stringify({ openapi: openApiDocument(BASE, 'sl-accounts'), auth: authMarkdown(BASE, 'sl-accounts'), skills }));
