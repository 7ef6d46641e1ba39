/** A pino logger that keeps every line it writes, for suites that check what reaches the log. */
import { Writable } from 'node:stream';
import { pino, type Logger, type LevelWithSilent } from 'pino';

export function capturingLogger(level: LevelWithSilent = 'trace'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}
