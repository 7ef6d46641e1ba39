/**
 * A loopback port free at the moment of asking, for a server whose address another party must know
 * before it starts: a redirect URI registered with `oidc-provider`, which a real browser follows.
 * The kernel picks it (port 0), so runs in parallel do not collide on a fixed number.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
