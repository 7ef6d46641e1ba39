/**
 * What one request to /mcp may cost: the JSON API's body rules, JSON-RPC batches only where the
 * protocol has them (2025-03-26), and then at most MAX_BATCH_MESSAGES, of which one does work.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_PROTOCOL_VERSION, MAX_BATCH_MESSAGES } from '@sl-accounts/service/mcp';
import type { RunningServer } from '@sl-accounts/server';
import { HOST_KINDS, startTestServer } from '../support/server.ts';

const message = (id: number, method: string, params: object = {}) => ({ jsonrpc: '2.0', id, method, params });
const healthCall = (id: number) => message(id, 'tools/call', { name: 'health', arguments: {} });

describe.each(HOST_KINDS)('what one /mcp request may cost, on the %s host', (host) => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function post(body: string | Uint8Array, headers: Record<string, string> = {}) {
    const res = await fetch(`${server!.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  }

  /** The JSON-RPC messages of an answer, whether it came as JSON or as server-sent events. */
  function messages(answer: { type: string; text: string }): { id?: unknown; result?: unknown; error?: { code: number; message: string } }[] {
    if (answer.type.startsWith('application/json')) return [JSON.parse(answer.text)].flat();
    return answer.text
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
      .map((line) => JSON.parse(line.slice('data: '.length)));
  }

  it(`answers a batch under ${BATCH_PROTOCOL_VERSION} (the only revision with batches), also when the client names none`, async () => {
    server = await startTestServer({ host });
    const batch = [message(1, 'tools/list'), message(2, 'ping'), healthCall(3)];
    for (const headers of [{}, { 'mcp-protocol-version': BATCH_PROTOCOL_VERSION }] as Record<string, string>[]) {
      const answer = await post(JSON.stringify(batch), headers);
      expect(answer.status).toBe(200);
      const byId = new Map(messages(answer).map((m) => [m.id, m]));
      expect([...byId.keys()].sort()).toEqual([1, 2, 3]);
      expect(byId.get(3)!.result).toMatchObject({ structuredContent: { ok: true, status: 'ok' } });
    }
  });

  it.each(['2025-06-18', '2026-07-28'])('refuses any batch under %s, which has none', async (version) => {
    server = await startTestServer({ host });
    const answer = await post(JSON.stringify([message(1, 'ping'), message(2, 'ping')]), { 'mcp-protocol-version': version });
    expect(answer.status).toBe(400);
    expect(messages(answer)).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining(version) } }]);
  });

  it(`refuses a batch of more than ${MAX_BATCH_MESSAGES} messages, such as 100 health calls`, async () => {
    server = await startTestServer({ host });
    const full = Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => message(i + 1, 'ping'));
    expect((await post(JSON.stringify(full))).status).toBe(200);
    for (const batch of [[...full, message(99, 'ping')], Array.from({ length: 100 }, (_, i) => healthCall(i + 1))]) {
      const answer = await post(JSON.stringify(batch));
      expect(answer.status).toBe(400);
      expect(messages(answer)[0]!.error).toMatchObject({ code: -32600 });
    }
  });

  it('refuses a batch with more than one message that does work (tool calls, resource reads)', async () => {
    server = await startTestServer({ host });
    const read = (id: number) => message(id, 'resources/read', { uri: `${server!.url}/openapi.json` });
    const one = await post(JSON.stringify([read(1), message(2, 'tools/list')]));
    expect(one.status).toBe(200);
    expect(messages(one)).toHaveLength(2);
    for (const batch of [[read(1), read(2)], [read(1), healthCall(2)], [healthCall(1), healthCall(2)]]) {
      const answer = await post(JSON.stringify(batch));
      expect(answer.status).toBe(400);
      expect(messages(answer)[0]!.error).toMatchObject({ code: -32600 });
    }
  });

  it('reads bodies as the JSON API does: compressed, at most 64 KiB, UTF-8', async () => {
    server = await startTestServer({ host });
    const gzipped = await post(gzipSync(JSON.stringify(healthCall(1))), { 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    expect(messages(gzipped)[0]!.result).toMatchObject({ structuredContent: { ok: true } });

    const tooLarge = await post(JSON.stringify({ ...healthCall(1), padding: 'x'.repeat(70_000) }));
    expect(tooLarge.status).toBe(413);
    expect(messages(tooLarge)[0]!.error).toMatchObject({ code: expect.any(Number) });
    // 64 KiB after decompression, however small the compressed body.
    const bomb = await post(gzipSync(JSON.stringify({ ...healthCall(1), padding: 'x'.repeat(1_000_000) })), { 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);

    const notUtf8 = await post(new Uint8Array([0x7b, 0xff, 0x7d]));
    expect(notUtf8.status).toBe(400);
    expect(messages(notUtf8)[0]!.error).toMatchObject({ code: -32700 });
    expect((await post('{"jsonrpc": "2.0",')).status).toBe(400);
  });
});
