import { describe, expect, it } from 'vitest';
import { canonicalIp, clientKey } from '@sl-accounts/service/core';

describe('canonicalIp', () => {
  it.each([
    ['5.5.5.5', '5.5.5.5'],
    [' 5.5.5.5 ', '5.5.5.5'],
    ['::ffff:5.5.5.5', '5.5.5.5'],
    ['::FFFF:5.5.5.5', '5.5.5.5'],
    ['0:0:0:0:0:ffff:505:505', '5.5.5.5'],
    ['[::ffff:5.5.5.5]:8080', '5.5.5.5'],
    ['5.5.5.5:1234', '5.5.5.5'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:db8:1:2::c', '2001:db8:1:2::c'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['::1', '::1'],
    ['::', '::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
    ['1:0:0:0:1:0:0:1', '1::1:0:0:1'],
    ['::5.5.5.5', '::505:505'],
  ])('%j is %j', (text, canonical) => {
    expect(canonicalIp(text)).toBe(canonical);
  });

  it.each(['', 'unknown', 'not-an-ip', '<script>', '005.005.005.005', '01.2.3.4', '256.1.1.1', '1.2.3', '5.5.5.5:99999', '[5.5.5.5]', '2001:db8::1::1', '[::1', 'x'.repeat(2700), '1.2.3.4, 5.6.7.8', 'fe80::1%<script>'])(
    '%j is not an IP address',
    (text) => {
      expect(canonicalIp(text)).toBeNull();
    },
  );
});

describe('clientKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
  });

  it('keys IPv6 by its /56 network by default', () => {
    expect(clientKey('2001:db8:1:2::1')).toBe('2001:db8:1::/56');
    expect(clientKey('2001:db8:1:ff:ffff:ffff:ffff:ffff')).toBe('2001:db8:1::/56');
    expect(clientKey('2001:db8:1:100::1')).toBe('2001:db8:1:100::/56');
    expect(clientKey('::1')).toBe('::/56');
  });

  it('takes any prefix from 1 to 128', () => {
    expect(clientKey('2001:db8:1:2::1', 64)).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::1', 128)).toBe('2001:db8:1:2::1/128');
    expect(clientKey('2001:db8:1:2::1', 48)).toBe('2001:db8:1::/48');
    expect(clientKey('2001:db8:1:2::1', 20)).toBe('2001::/20');
    expect(clientKey('ffff::1', 1)).toBe('8000::/1');
  });
});
