/**
 * Starts the real server (the production wiring in http-koa's main.ts) on a free port for a test.
 */
import { pino } from 'pino';
import { loadConfig } from '@sl/http-koa';
import { startServer, type RunningServer, type ServerOverrides } from '../../packages/http-koa/src/main.ts';

export type StoreKind = 'memory';

/** The stores every end-to-end suite runs against. */
export const STORE_KINDS: readonly StoreKind[] = ['memory'];

/** Low work factor for speed; one suite runs the default 600000 on purpose. */
export const TEST_ITERATIONS = 1_000;

export interface TestServerOptions extends ServerOverrides {
  readonly store?: StoreKind;
  /** Extra environment, as a user would set it (e.g. `{ TRUST_PROXY: '1' }`). */
  readonly env?: Record<string, string>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<RunningServer> {
  const { store = 'memory', env = {}, ...overrides } = options;
  const config = loadConfig({ PORT: '0', STORE: store, PBKDF2_ITERATIONS: String(TEST_ITERATIONS), LOG_LEVEL: 'silent', ...env });
  return startServer(config, { logger: pino({ level: config.LOG_LEVEL }), ...overrides });
}
