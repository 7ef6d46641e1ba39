/**
 * Runs a server as a real child process, as a user would: the entry `pnpm start` runs (the service in
 * its Koa app) or the node:http example (with its own routes beside); finds its address in the `listening` log line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** package.json's `start` script, word by word: node, its flags, the entry. */
const START_SCRIPT = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
/** The entry `pnpm start` runs (the service in its Koa app), as its script names it. */
export const START_ENTRY = resolve(ROOT, START_SCRIPT.at(-1)!);
/** The node flags `pnpm start` gives. */
export const START_FLAGS: readonly string[] = START_SCRIPT.filter((word) => word.startsWith('--'));

const ENTRIES = {
  start: START_ENTRY,
  node: fileURLToPath(import.meta.resolve('@sl-accounts/example-node-http')),
  /** `pnpm start` with an operator's own middleware and routes (README, "Your own routes"). */
  'koa-start': fileURLToPath(import.meta.resolve('@sl-accounts/example-koa/start')),
} as const;

export interface SpawnOptions {
  /** `pnpm`: `pnpm start` in the repository, as a user runs it; default `node` on the entry. */
  readonly via?: 'node' | 'pnpm';
  /** In a process group of its own, led by the child (to signal the whole group, as systemd does). */
  readonly detached?: boolean;
  /** Node flags before the entry (`START_FLAGS`: those of `pnpm start`); with `via: 'pnpm'` the script's own. */
  readonly nodeFlags?: readonly string[];
}

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Everything it wrote so far, for failure messages. */
  output(): string;
  /** Sends `signal` to the whole process group when spawned `detached`, else to the child. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it has not exited after 5 s. */
  stop(): Promise<void>;
}

/**
 * Starts a server with a clean environment plus `env` (PORT=0, LOG_LEVEL=info and a low
 * PBKDF2_ITERATIONS unless `env` says otherwise). Rejects if it exits or stays silent for 30 s.
 */
export async function spawnServer(env: Record<string, string>, host: keyof typeof ENTRIES = 'start', options: SpawnOptions = {}): Promise<ServerProcess> {
  const [command, args] = options.via === 'pnpm' ? ['pnpm', ['start']] : [process.execPath, [...(options.nodeFlags ?? []), ENTRIES[host]]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PBKDF2_ITERATIONS: '1000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  // Under pnpm, or in a group of its own, the server is not alone: a forced end reaches all of it.
  const killAll = (signal: NodeJS.Signals) => {
    if (options.detached && child.pid !== undefined) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is gone
      }
    } else child.kill(signal);
  };
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });

  const url = await new Promise<string>((resolve, reject) => {
    // Generous: a new PGlite directory's initdb passed 30 s at load 14-18 (the case's own timeout bounds it too).
    const timer = setTimeout(() => fail(new Error('no "listening" line within 90 s')), 90_000);
    const onExit = (code: number | null, signal: string | null) => fail(new Error(`server exited early (code ${code}, signal ${signal})`));
    const fail = (error: Error) => {
      clearTimeout(timer);
      killAll('SIGKILL');
      reject(new Error(`${error.message}\n${output}`));
    };
    child.once('exit', onExit);
    lines.on('line', (line) => {
      output += `${line}\n`;
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'listening' && entry.url) {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve(entry.url);
        }
      } catch {
        // not a log line
      }
    });
  });

  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    child,
    alive,
    output: () => output,
    signal: killAll,
    stop: async () => {
      if (!alive()) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const force = setTimeout(() => killAll('SIGKILL'), 5_000);
      await exited;
      clearTimeout(force);
    },
  };
}
