/**
 * The MCP server card (SEP-2127 draft): what an MCP client needs to know before it connects to `/mcp`.
 */
import { API_VERSION } from '@sl-accounts/service/discovery';
import type { DocumentRoute } from '@sl-accounts/service/http';
import Negotiator from 'negotiator';
import { MCP_PATH, MCP_PROTOCOL_VERSIONS } from './protocol.ts';

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_CARD_PATHS = ['/.well-known/mcp/server-card.json', `${MCP_PATH}/server-card`] as const;
/** The card's own media type, served to a client that asks for it (the draft says servers SHOULD). */
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';

/** `com.example/sl-accounts` for https://example.com; hosts that are not DNS names get `localhost`. */
export function reverseDnsName(base: string, serviceName: string): string {
  const host = URL.parse(base)?.hostname ?? '';
  const dnsName = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host) && !/^[\d.]+$/.test(host);
  return `${dnsName ? host.split('.').reverse().join('.') : 'localhost'}/${serviceName}`;
}

/**
 * `base` is the service's base URL, mount path included; `basePath` is that path alone; `websitePath`,
 * when a page about the service is served, its path under `base` (without one the card names none).
 */
export function serverCard(base: string, serviceName: string, basePath = '', websitePath?: string) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: reverseDnsName(base, serviceName),
    version: API_VERSION,
    title: serviceName,
    description: 'Health check and contact messages of the account and contact service.',
    ...(websitePath === undefined ? {} : { websiteUrl: `${base}${websitePath}` }),
    remotes: [{ type: 'streamable-http', url: `${base}${MCP_PATH}`, supportedProtocolVersions: MCP_PROTOCOL_VERSIONS }],
    // Fields of earlier card drafts, still read by some clients and scanners.
    serverInfo: { name: serviceName, version: API_VERSION },
    transport: { type: 'streamable-http', endpoint: basePath + MCP_PATH, url: `${base}${MCP_PATH}` },
    capabilities: { tools: {}, resources: {} },
  };
}

/**
 * The card at both of its paths, public (CORS) like the other discovery documents: as
 * `application/mcp-server-card+json` when the client's `Accept` prefers that, else as
 * `application/json`. Caching headers and the entity tag come with every document.
 */
export function serverCardDocuments(serviceName: string, basePath = '', websitePath?: string): DocumentRoute[] {
  return SERVER_CARD_PATHS.map((path) => ({
    path,
    cors: true,
    usesBase: true,
    ...(path === `${MCP_PATH}/server-card` ? { indexAs: 'mcpServerCard' } : {}),
    render: (request, base) => {
      // Without Accept (or with an empty one) negotiator offers the first: plain JSON.
      const asked = new Negotiator(request).mediaType(['application/json', SERVER_CARD_TYPE]) === SERVER_CARD_TYPE;
      const type = asked ? SERVER_CARD_TYPE : 'application/json; charset=utf-8';
      return { status: 200, headers: { 'content-type': type, vary: 'Accept' }, body: JSON.stringify(serverCard(base, serviceName, basePath, websitePath)) };
    },
  }));
}
