/**
 * The MCP server card: what an MCP client needs to know before it connects to `/mcp`.
 */
import { MCP_PATH, MCP_PROTOCOL_VERSIONS } from '../mcp.ts';
import { API_VERSION } from './openapi.ts';

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_CARD_PATHS = ['/.well-known/mcp/server-card.json', `${MCP_PATH}/server-card`] as const;

/** `com.example/sl-accounts` for https://example.com; hosts that are not DNS names get `localhost`. */
export function reverseDnsName(base: string, serviceName: string): string {
  const host = new URL(base).hostname;
  const dnsName = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host) && !/^[\d.]+$/.test(host);
  return `${dnsName ? host.split('.').reverse().join('.') : 'localhost'}/${serviceName}`;
}

export function serverCard(base: string, serviceName: string) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: reverseDnsName(base, serviceName),
    version: API_VERSION,
    title: serviceName,
    description: 'Health check and contact messages of the account and contact service.',
    websiteUrl: `${base}/docs/api`,
    remotes: [{ type: 'streamable-http', url: `${base}${MCP_PATH}`, supportedProtocolVersions: MCP_PROTOCOL_VERSIONS }],
    // Fields of earlier card drafts, still read by some clients and scanners.
    serverInfo: { name: serviceName, version: API_VERSION },
    transport: { type: 'streamable-http', endpoint: MCP_PATH, url: `${base}${MCP_PATH}` },
    capabilities: { tools: {}, resources: {} },
  };
}
