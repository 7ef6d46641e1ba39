/**
 * What keeps `pnpm test:unit` in-process: in its workers, listening or connecting on any socket
 * (TCP, Unix, UDP: a server, PostgreSQL, Redis, SMTP, the network), starting a process (a browser,
 * a server, a CLI) and loading embedded PGlite all throw, so a case that needs one fails the run
 * with a message saying where it belongs, instead of quietly passing through the network.
 */
import childProcess, { ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { registerHooks, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

function refused(what: string): Error {
  return new Error(`pnpm test:unit is in-process: ${what} is refused (test/support/in-process-guard.ts). A case that needs it belongs to pnpm test: tag it (vitest.unit.config.ts).`);
}

export function guardInProcess(): void {
  const installed = Symbol.for('sl.in-process-guard');
  const global = globalThis as { [installed]?: true };
  if (global[installed]) return; // without isolation, every test file runs the setup again
  global[installed] = true;

  net.Server.prototype.listen = function listen(): never {
    throw refused('listening on a socket');
  };
  net.Socket.prototype.connect = function connect(): never {
    throw refused('opening a connection');
  };
  dgram.Socket.prototype.bind = function bind(): never {
    throw refused('binding a UDP socket');
  };
  dgram.Socket.prototype.send = function send(): never {
    throw refused('sending a UDP datagram');
  };
  // spawn, exec, execFile and fork all start their process through ChildProcess#spawn.
  (ChildProcess.prototype as unknown as { spawn: () => never }).spawn = () => {
    throw refused('starting a process');
  };
  for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
    (childProcess as unknown as Record<string, unknown>)[name] = () => {
      throw refused('starting a process');
    };
  }
  // The named ESM imports of node:child_process see the replaced functions too.
  syncBuiltinESMExports();

  // PGlite is a database in this process: the store behind it is pnpm test's.
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (/[\\/]@electric-sql[\\/]pglite[\\/]/.test(resolved.url)) throw refused(`loading PGlite (${specifier})`);
      return resolved;
    },
  });
}
