/**
 * A server process on a fresh database of the test server, reached through a TCP proxy of this
 * process, so a test can fail the network between them without touching the real server.
 */
import { createTestDatabase } from '@sl-accounts/store-postgres/testing';
import { spawnServer, type ServerProcess } from './server-process.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

export interface ProxiedServer {
  readonly proxy: TcpProxy;
  readonly app: ServerProcess;
  /** Stops the server, closes the proxy and drops the database. */
  close(): Promise<void>;
}

/** `spawnServer` with STORE=postgres, DATABASE_URL through the proxy, and `env`. */
export async function startProxiedServer(env: Record<string, string> = {}): Promise<ProxiedServer> {
  const database = await createTestDatabase();
  let proxy: TcpProxy | undefined;
  let app: ServerProcess | undefined;
  const close = async () => {
    try {
      await app?.stop();
      await proxy?.close();
    } finally {
      await database.drop();
    }
  };
  try {
    const url = new URL(database.url);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    app = await spawnServer({ STORE: 'postgres', DATABASE_URL: url.toString(), ...env });
    return { proxy, app, close };
  } catch (error) {
    await close();
    throw error;
  }
}
