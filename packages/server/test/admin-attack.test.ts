/**
 * The operator's API attacked from outside (issues 42/43 review, branch i4x-attack): requests a
 * client can send that the route table never sees must still get a clear 4xx, and never take the
 * process down.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdmin, randomTokens } from '@sl-accounts/service/core';
import { ManualClock, testHasher } from '@sl-accounts/service/core/testing';
import { createMemoryStore } from '@sl-accounts/store-memory';
import { listenAdmin, parseAdminTokens } from '../src/admin.ts';
import { parseArguments } from '../src/admin-cli.ts';

const TOKEN = 'a'.repeat(43);
const silent = { info: () => {}, error: () => {} };
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** Sends raw bytes and resolves with what came back before the socket closed (or the deadline). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    const deadline = setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, 5_000);
    socket.on('data', (chunk) => {
      answer += String(chunk);
      if (answer.includes('\r\n\r\n')) {
        clearTimeout(deadline);
        socket.end();
        resolve(answer);
      }
    });
    socket.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve(answer);
    });
  });
}

describe('the operator API under attack', { tags: ['socket'] }, () => {
  it('answers a request target that is no URL 400, with or without a token, and keeps serving', async () => {
    const store = createMemoryStore();
    const admin = createAdmin({ store, hasher: testHasher, clock: new ManualClock(), tokens: randomTokens });
    const listening = await listenAdmin(admin, { port: 0, host: '127.0.0.1', tokens: parseAdminTokens(`alice:${TOKEN}`) }, silent);
    stop = () => listening.close();
    const port = Number(new URL(listening.url).port);
    for (const auth of ['', `Authorization: Bearer ${TOKEN}\r\n`]) {
      const answer = await raw(port, `GET http://[x/admin/accounts HTTP/1.1\r\nHost: a\r\n${auth}Connection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toContain('"code":"validation"');
    }
    const after = await fetch(`${listening.url}/accounts`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(after.status).toBe(200);
  });
});

describe('pnpm admin under attack', () => {
  it('refuses a flag given a value: --yes=no is no --yes (a deletion must not go through on it)', () => {
    expect(() => parseArguments(['delete', '1', '--reason', 'x', '--yes=no'])).toThrow(/--yes takes no value/);
    expect(() => parseArguments(['show', '1', '--json=false'])).toThrow(/--json takes no value/);
  });

  it('refuses an operator name the admin API could not have (empty, too long, other characters)', () => {
    for (const name of ['', ' ', 'x'.repeat(65), 'bad:name', 'two words', 'tab\there']) {
      expect(() => parseArguments(['lock', '1', '--reason', 'x', '--operator', name]), JSON.stringify(name)).toThrow(/--operator/);
    }
    expect(parseArguments(['lock', '1', '--reason', 'x', '--operator', 'ops.team-1']).options.operator).toBe('ops.team-1');
  });
});

describe('ADMIN_TOKENS under attack', () => {
  it('refuses one token under two names: the log could not tell which operator acted', () => {
    const token = 'c'.repeat(40);
    expect(() => parseAdminTokens(`alice:${token} bob:${token}`)).toThrow(/bob.*same token as alice/);
    expect(() => parseAdminTokens(`alice:${token} bob:${token}`)).not.toThrow(new RegExp(token));
  });
});
