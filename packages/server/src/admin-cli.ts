/**
 * `pnpm admin <command>`: the operator's use cases (issue 43, docs/decisions/0058-operator-api-and-cli.md)
 * for a site without the admin port, configured from the environment exactly as `pnpm start` is (the
 * same store, the same options). The output is text, or JSON with `--json`; every bad input is a
 * clear message on standard error and a non-zero status (2: usage, 1: the operation failed); a
 * deletion asks first (or takes `--yes`). The operator recorded in events is `cli`, or `--operator`.
 *
 * With SQLite or PGlite the data directory is one process's: stop `pnpm start` first (or use Postgres,
 * where the CLI runs beside the servers and its lock reaches their sessions through the revocation feed).
 */
import { createInterface } from 'node:readline/promises';
import { isDomainError, type AdminUseCases, type OperatorMeta } from '@sl-accounts/service/core';
import { OPERATOR_NAME } from './admin.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { configureService } from './serve.ts';

const USAGE = `Usage: pnpm admin <command> [arguments] [--json]

Commands:
  find [address-prefix] [--cursor C]     accounts whose address starts with the prefix
  show <id>                              profile, factors, sessions, last events
  lock <id> --reason TEXT                no sign-in by any method; every session ends
  unlock <id> [--reason TEXT]
  end-sessions <id> [--reason TEXT]
  send-reset <id> [--reason TEXT]        mail the owner a password reset link
  remove-factors <id> --reason TEXT      remove TOTP, recovery codes and passkeys (the owner is told)
  delete <id> --reason TEXT [--yes]      delete the account (asks first without --yes)
  export <id>                            everything stored about the account, as JSON
  activity [--type T] [--cursor C]       every account's events, newest first

Options: --json (JSON output), --operator NAME (recorded in events; default cli), --yes.
Configuration: the environment of pnpm start (DATABASE_URL, DATA_DIR, ...).`;

/** A usage error: status 2. */
class Usage extends Error {}

interface Parsed {
  readonly command: string;
  readonly args: readonly string[];
  readonly options: Readonly<Record<string, string | true>>;
}

const COMMANDS = new Set(['find', 'show', 'lock', 'unlock', 'end-sessions', 'send-reset', 'remove-factors', 'delete', 'export', 'activity']);
const VALUED = new Set(['reason', 'type', 'cursor', 'operator']);
const FLAGS = new Set(['json', 'yes', 'help']);

export function parseArguments(argv: readonly string[]): Parsed {
  const args: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') continue;
    if (!arg.startsWith('--')) {
      args.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (FLAGS.has(name)) {
      // `--yes=no` is not a yes: a flag takes no value.
      if (inline !== undefined) throw new Usage(`--${name} takes no value`);
      options[name] = true;
    }
    else if (VALUED.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Usage(`--${name} needs a value`);
      options[name] = value;
    } else throw new Usage(`unknown option --${name}`);
  }
  // The names the admin API's operators can have: the log tells them apart, and bounds them.
  if (typeof options.operator === 'string' && !OPERATOR_NAME.test(options.operator)) throw new Usage('--operator takes a name of 1 to 64 of A-Z a-z 0-9 . _ -');
  const [command = '', ...rest] = args;
  return { command, args: rest, options };
}

const text = (value: string | true | undefined) => (typeof value === 'string' ? value : undefined);

/** One `<id>` argument, else a usage error. */
function idOf(parsed: Parsed): string {
  if (parsed.args.length !== 1) throw new Usage(`${parsed.command} takes one account id`);
  return parsed.args[0]!;
}

/** Runs one command; answers what it printed as JSON. */
async function execute(admin: AdminUseCases, parsed: Parsed, confirm: (question: string) => Promise<boolean>): Promise<unknown> {
  const meta: OperatorMeta = { operator: text(parsed.options.operator) ?? 'cli' };
  const reason = text(parsed.options.reason);
  const body = reason === undefined ? {} : { reason };
  switch (parsed.command) {
    case 'find':
      if (parsed.args.length > 1) throw new Usage('find takes at most one address prefix');
      return admin.findAccounts(parsed.args[0] ?? '', text(parsed.options.cursor));
    case 'show':
      return admin.showAccount(idOf(parsed));
    case 'lock':
      return admin.lockAccount(idOf(parsed), body, meta);
    case 'unlock':
      return admin.unlockAccount(idOf(parsed), body, meta);
    case 'end-sessions':
      return admin.endSessions(idOf(parsed), body, meta);
    case 'send-reset':
      return admin.sendPasswordReset(idOf(parsed), body, meta);
    case 'remove-factors':
      return admin.removeSecondFactors(idOf(parsed), body, meta);
    case 'delete': {
      const id = idOf(parsed);
      // The account first: a wrong id fails before anything is asked.
      const shown = await admin.showAccount(id);
      if (parsed.options.yes !== true && !(await confirm(`Delete account ${shown.profile.id} (${shown.profile.email}) and everything it holds? Type yes: `))) {
        throw new Usage('not deleted: confirm with yes, or pass --yes');
      }
      await admin.deleteAccount(id, body, meta);
      return { deleted: shown.profile.id };
    }
    case 'export':
      return admin.exportAccount(idOf(parsed), meta);
    case 'activity':
      if (parsed.args.length > 0) throw new Usage('activity takes no arguments: --type and --cursor filter it');
      return admin.listActivity(text(parsed.options.cursor), text(parsed.options.type));
    case '':
      throw new Usage('no command given');
    default:
      throw new Usage(`unknown command ${parsed.command}`);
  }
}

/** Plain text of a result: one `key: value` per line, nested objects indented. */
export function plain(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object') return `${indent}${String(value)}`;
  if (Array.isArray(value)) return value.length === 0 ? `${indent}(none)` : value.map((item) => `${indent}-\n${plain(item, `${indent}  `)}`).join('\n');
  return Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => (item !== null && typeof item === 'object' ? `${indent}${key}:\n${plain(item, `${indent}  `)}` : `${indent}${key}: ${String(item)}`))
    .join('\n');
}

/** The CLI's whole run: its exit status. */
export async function adminMain(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, out: (line: string) => void, err: (line: string) => void, ask?: (question: string) => Promise<string>): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArguments(argv);
  } catch (error) {
    err(`pnpm admin: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.options.help === true) {
    out(USAGE);
    return 0;
  }
  // Before the store is opened: a typo costs nothing.
  if (!COMMANDS.has(parsed.command)) {
    err(`pnpm admin: ${parsed.command ? `unknown command ${parsed.command}` : 'no command given'}\n\n${USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    err(`pnpm admin: ${(error as Error).message}`);
    return 2;
  }
  // Logs to standard error, errors only: standard output is the answer.
  const logger = createLogger({ ...config, logLevel: 'error', logFormat: config.logFormat ?? 'json' }, process.stderr);
  let configured;
  try {
    configured = await configureService({ ...config, admin: undefined, metrics: undefined }, { logger });
  } catch (error) {
    err(`pnpm admin: cannot open the store: ${(error as Error).message}`);
    return 1;
  }
  const confirm = async (question: string) => {
    if (!ask) return false;
    return /^y(es)?$/i.test((await ask(question)).trim());
  };
  try {
    const result = await execute(configured.service.admin, parsed, confirm);
    out(parsed.options.json === true ? JSON.stringify(result, null, 2) : plain(result));
    return 0;
  } catch (error) {
    if (error instanceof Usage) {
      err(`pnpm admin: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (isDomainError(error)) {
      const issues = error.code === 'validation' ? error.issues : undefined;
      if (parsed.options.json === true) err(JSON.stringify({ ok: false, error: error.message, code: error.code, ...(issues ? { issues } : {}) }));
      else err(`pnpm admin: ${error.message} (${error.code})`);
      return 1;
    }
    err(`pnpm admin: failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await configured.close();
  }
}

if (import.meta.main) {
  // A prompt only where someone can answer it.
  const ask = process.stdin.isTTY
    ? async (question: string) => {
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        try {
          return await rl.question(question);
        } finally {
          rl.close();
        }
      }
    : undefined;
  const status = await adminMain(process.argv.slice(2), process.env, (line) => process.stdout.write(`${line}\n`), (line) => process.stderr.write(`${line}\n`), ask);
  process.exit(status);
}
