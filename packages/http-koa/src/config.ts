import { z } from 'zod';

/** Treats `VAR=` like an unset variable. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Environment variables, as DESIGN.md lists them. All optional. */
export const ConfigSchema = z.object({
  PORT: optional(z.coerce.number().int().min(0).max(65_535)).default(3000),
  HOST: optional(z.string()).default('127.0.0.1'),
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')),
  DATA_DIR: optional(z.string()).default('./.data'),
  STORE: optional(z.enum(['postgres', 'pglite', 'memory'])),
  TRUST_PROXY: optional(z.coerce.number().int().min(0).max(32)).default(0),
  PBKDF2_ITERATIONS: optional(z.coerce.number().int().min(1).max(100_000_000)).default(600_000),
  PUBLIC_URL: optional(z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''))),
  LOG_LEVEL: optional(z.enum(LOG_LEVELS)).default('info'),
});

export type Config = z.output<typeof ConfigSchema> & { readonly STORE: 'postgres' | 'pglite' | 'memory' };

/** Parses the environment; throws an Error whose message names every bad variable on one line. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = ConfigSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const config = result.data;
  const store = config.STORE ?? (config.DATABASE_URL ? 'postgres' : 'pglite');
  if (store === 'postgres' && !config.DATABASE_URL) throw new Error('Invalid configuration: STORE=postgres needs DATABASE_URL');
  return { ...config, STORE: store };
}
