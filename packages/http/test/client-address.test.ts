/**
 * Who the client is, for the rate limits: the socket's address, or the X-Forwarded-For entry the
 * outermost trusted proxy appended; never what the client wrote itself.
 */
import { describe, expect, it } from 'vitest';
import { clientAddress, type HttpRequest, type Logger } from '@sl-accounts/service/http';

const from = (remoteAddress: string | undefined, forwardedFor?: string): HttpRequest => ({
  method: 'POST',
  url: '/api/login',
  headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  remoteAddress,
  body: null,
});

describe('clientAddress', () => {
  it('is the socket’s address, canonical, without trusted proxies, whatever X-Forwarded-For says', () => {
    expect(clientAddress(from('192.0.2.5', '203.0.113.9'), 0)).toBe('192.0.2.5');
    expect(clientAddress(from('::ffff:192.0.2.5'), 0)).toBe('192.0.2.5');
    expect(clientAddress(from('2001:DB8:0:0::1'), 0)).toBe('2001:db8::1');
    expect(clientAddress(from(undefined), 0)).toBe('unknown');
  });

  it.each([
    [1, '203.0.113.9', '203.0.113.9'],
    [1, '198.51.100.1, 203.0.113.9', '203.0.113.9'],
    [1, 'spoofed, 198.51.100.1,203.0.113.9', '203.0.113.9'],
    [2, '198.51.100.1, 203.0.113.9', '198.51.100.1'],
    [3, '198.51.100.1, 203.0.113.9', '198.51.100.1'],
    [1, ' [2001:DB8::7]:443 ', '2001:db8::7'],
    [1, '203.0.113.9:61234', '203.0.113.9'],
  ])('with %i trusted hop(s), X-Forwarded-For %j is %j', (hops, forwardedFor, address) => {
    expect(clientAddress(from('10.0.0.1', forwardedFor), hops)).toBe(address);
  });

  it('is the socket’s address behind a trusted proxy that sent no X-Forwarded-For', () => {
    expect(clientAddress(from('10.0.0.1'), 1)).toBe('10.0.0.1');
  });

  it('counts the socket’s address for an entry that is not an IP address, with a warning naming it', () => {
    const warned: object[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (fields) => void warned.push(fields) };
    expect(clientAddress(from('10.0.0.1', '198.51.100.1, not-an-ip'), 1, logger)).toBe('10.0.0.1');
    expect(warned).toEqual([{ entry: 'not-an-ip', socket: '10.0.0.1' }]);
  });
});
