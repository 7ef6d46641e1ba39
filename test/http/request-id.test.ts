/**
 * X-Request-Id: every answer carries one, and its log line the same. Behind trusted proxies a
 * well-formed incoming id is kept, so one request can be followed through every hop; otherwise
 * (no trusted proxy, or an id that is too long or holds other characters) the server makes its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '@sl-accounts/server';
import { capturingLogger } from '../support/logger.ts';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const WELL_FORMED = ['3f2b8c1e-9a4d-4c7e-8f00-1a2b3c4d5e6f', '01J9ZQ8Y7X6W5V4T3S2R1Q0P9N', 'Root=1-5759e988-bd862e3fe1be46a994272793', 'a', 'x'.repeat(128)];
const MALFORMED = ['x'.repeat(129), 'has space', 'semi;colon', 'quote"d', '<script>', 'ünicode'];

describe.each(HOST_KINDS)('X-Request-Id on the %s host', (host) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const idsOf = (lines: string[]) => lines.map((l) => JSON.parse(l) as { msg: string; reqId?: string }).filter((l) => l.msg === 'request').map((l) => l.reqId);

  it('with TRUST_PROXY, keeps a well-formed incoming id on the answer and in the log, for the API, documents and /mcp', async () => {
    const { logger, lines } = capturingLogger('info');
    server = await startTestServer({ host, logger, env: { TRUST_PROXY: '1' } });
    for (const id of WELL_FORMED) {
      for (const path of ['/api/health', '/openapi.json', '/api/nope']) {
        const res = await fetch(`${server.url}${path}`, { headers: { 'x-request-id': id } });
        expect(res.headers.get('x-request-id'), path).toBe(id);
        await res.body?.cancel();
      }
      const mcp = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'x-request-id': id, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(mcp.headers.get('x-request-id')).toBe(id);
      await mcp.body?.cancel();
    }
    expect(idsOf(lines)).toEqual(WELL_FORMED.flatMap((id) => [id, id, id, id]));
  });

  it('with TRUST_PROXY, replaces a malformed id with its own', async () => {
    const { logger, lines } = capturingLogger('info');
    server = await startTestServer({ host, logger, env: { TRUST_PROXY: '1' } });
    for (const id of MALFORMED) {
      const res = await fetch(`${server.url}/api/health`, { headers: { 'x-request-id': id } });
      const answered = res.headers.get('x-request-id')!;
      expect(answered).not.toBe(id);
      expect(answered).toMatch(/^[\w-]+-[0-9a-z]+$/);
      await res.body?.cancel();
    }
    expect(idsOf(lines).every((id) => !MALFORMED.includes(id!))).toBe(true);
  });

  it('without trusted proxies, ignores an incoming id: a client cannot choose the id of its log lines', async () => {
    server = await startTestServer({ host });
    const res = await fetch(`${server.url}/api/health`, { headers: { 'x-request-id': WELL_FORMED[0]! } });
    expect(res.headers.get('x-request-id')).not.toBe(WELL_FORMED[0]);
    expect(res.headers.get('x-request-id')).toMatch(/\S/);
  });
});
