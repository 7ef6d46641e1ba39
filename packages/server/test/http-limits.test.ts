import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { limitConnections } from '@sl/server';

/** A socket as the cap sees it: an address, `destroy`, and a `close` event. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  readonly remoteAddress: string;
  constructor(remoteAddress: string) {
    super();
    this.remoteAddress = remoteAddress;
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

function cappedServer(perAddress: number) {
  const server = new EventEmitter() as unknown as Server;
  limitConnections(server, { maxConnections: 1000, maxConnectionsPerAddress: perAddress } as never, pino({ level: 'silent' }));
  const connect = (address: string) => {
    const socket = new FakeSocket(address);
    server.emit('connection', socket);
    return socket;
  };
  return { connect };
}

describe('the per-address connection cap', () => {
  it('counts an IPv6 peer by its /56 network, and every spelling of an address as one', () => {
    const { connect } = cappedServer(2);
    expect(connect('2001:db8:1:200::1').destroyed).toBe(false);
    expect(connect('2001:db8:1:2ff:ffff::9').destroyed).toBe(false);
    expect(connect('2001:db8:1:201::7').destroyed).toBe(true); // the same /56, third connection
    expect(connect('2001:db8:1:300::1').destroyed).toBe(false); // another /56

    expect(connect('192.0.2.1').destroyed).toBe(false);
    expect(connect('::ffff:192.0.2.1').destroyed).toBe(false);
    expect(connect('::FFFF:192.0.2.1').destroyed).toBe(true);
  });

  it('frees a place when a connection closes', () => {
    const { connect } = cappedServer(1);
    const first = connect('192.0.2.9');
    expect(connect('192.0.2.9').destroyed).toBe(true);
    first.destroy();
    expect(connect('192.0.2.9').destroyed).toBe(false);
  });
});
