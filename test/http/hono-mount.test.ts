/**
 * A Hono mount's trailing slash (issue 40, row 8): `app.route('/svc', accounts(service))` answers
 * `/svc/` as it answers `/svc`, on Node (node's request, through `@hono/node-server`) and off it
 * (Hono's own `Request`, as on Bun or Deno), while the app's own routes beside it keep theirs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { accounts } from '@sl-accounts/service/hono';
import { useFetchService } from '../support/fetch-service.ts';

const start = useFetchService();
let server: Server | undefined;
afterEach(async () => {
  const open = server;
  server = undefined;
  if (!open) return;
  open.closeAllConnections();
  await new Promise((resolve) => open.close(resolve));
});

/** `fetch` of the app: in-process off Node, or over a socket through `@hono/node-server`. */
async function fetcher(app: Hono, on: 'node' | 'web'): Promise<(path: string) => Promise<Response>> {
  if (on === 'web') return async (path) => app.fetch(new Request(`http://localhost${path}`));
  server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return (path) => fetch(`http://127.0.0.1:${port}${path}`);
}

// Over a socket on Node (pnpm test), in-process off it (pnpm test:unit too).
describe.for([['node', ['socket']], ['web', []]] as const)('a Hono mount on %s', ([on, tags]) => {
  it('answers /svc/ as /svc, and leaves the app’s own paths under /svc/ to it', { tags: [...tags] }, async () => {
    const app = new Hono().route('/svc', accounts(await start()));
    app.get('/svc/mine', (c) => c.text('mine'));
    const get = await fetcher(app, on);
    const bare = await get('/svc');
    const slashed = await get('/svc/');
    expect([bare.status, slashed.status]).toEqual([200, 200]);
    expect(slashed.headers.get('content-type')).toBe(bare.headers.get('content-type'));
    expect(await slashed.json()).toEqual(await bare.json());
    expect(await (await get('/svc/mine')).text()).toBe('mine');
    expect((await get('/svc/api/health')).status).toBe(200);
    // Still nothing of the service's at another path of the app's.
    expect((await get('/elsewhere/')).status).toBe(404);
  });
});
