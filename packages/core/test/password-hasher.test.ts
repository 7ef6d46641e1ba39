import { describe, expect, it } from 'vitest';
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { Pbkdf2PasswordHasher, type Pbkdf2 } from '@sl-accounts/service/core';

const PHC = /^\$pbkdf2-sha256\$i=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

describe('Pbkdf2PasswordHasher', () => {
  const hasher = new Pbkdf2PasswordHasher({ iterations: 1000 });

  it('writes a PHC string: 16-byte salt, 32-byte key, standard base64 without padding', async () => {
    const phc = await hasher.hash('correct horse');
    const match = PHC.exec(phc);
    expect(match).not.toBeNull();
    expect(match![1]).toBe('1000');
    expect(Buffer.from(match![2]!, 'base64')).toHaveLength(16);
    expect(Buffer.from(match![3]!, 'base64')).toHaveLength(32);
    expect(phc).not.toContain('correct horse');
  });

  it('salts every hash', async () => {
    expect(await hasher.hash('same')).not.toBe(await hasher.hash('same'));
  });

  it('verifies the right password and rejects a wrong one', async () => {
    const phc = await hasher.hash('correct horse');
    expect(await hasher.verify('correct horse', phc)).toBe(true);
    expect(await hasher.verify('correct horsE', phc)).toBe(false);
    expect(await hasher.verify(' correct horse', phc)).toBe(false);
  });

  it('is plain PBKDF2-HMAC-SHA256: verifies the RFC 7914 style vector P="password", S="salt", c=1', async () => {
    // Known PBKDF2-HMAC-SHA256 output for these inputs, 32 bytes.
    const key = Buffer.from('120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b', 'hex');
    const phc = `$pbkdf2-sha256$i=1$${Buffer.from('salt').toString('base64').replace(/=+$/, '')}$${key.toString('base64').replace(/=+$/, '')}`;
    expect(await hasher.verify('password', phc)).toBe(true);
    expect(await hasher.verify('passwore', phc)).toBe(false);
  });

  it.each(['', 'plain', '$pbkdf2-sha256$i=0$c2FsdA$AAAA', '$pbkdf2-sha1$i=1$c2FsdA$AAAA', '$pbkdf2-sha256$i=1$$AAAA', '$pbkdf2-sha256$i=1$c2FsdA$AA==', '$argon2id$v=19$m=1,t=1,p=1$c2FsdA$AAAA'])(
    'answers false, never throws, for the malformed hash %j',
    async (phc) => {
      expect(await hasher.verify('password', phc)).toBe(false);
      expect(hasher.needsRehash(phc)).toBe(true);
    },
  );

  it('asks for a rehash when the stored hash is weaker than configured', async () => {
    const weak = await new Pbkdf2PasswordHasher({ iterations: 500 }).hash('pw');
    expect(hasher.needsRehash(weak)).toBe(true);
    expect(hasher.needsRehash(await hasher.hash('pw'))).toBe(false);
    expect(new Pbkdf2PasswordHasher({ iterations: 100 }).needsRehash(await hasher.hash('pw'))).toBe(false);
  });

  it('defaults to 600000 iterations: it asks PBKDF2 for that many, and writes them into the hash', async () => {
    const asked: number[] = [];
    // Node's PBKDF2 at one iteration stands in for the cost; the count asked for is what is checked.
    const cheap: Pbkdf2 = (password, salt, iterations, keyLength) => {
      asked.push(iterations);
      return promisify(pbkdf2)(password, salt, 1, keyLength, 'sha256');
    };
    const strong = new Pbkdf2PasswordHasher({ pbkdf2: cheap });
    expect(strong.iterations).toBe(600_000);
    const phc = await strong.hash('a long passphrase');
    expect(phc).toMatch(/^\$pbkdf2-sha256\$i=600000\$/);
    expect(await strong.verify('a long passphrase', phc)).toBe(true);
    expect(asked).toEqual([600_000, 600_000]);
  });

  it('at the default 600000 iterations, a real hash verifies', { tags: ['real-cost'] }, async () => {
    const strong = new Pbkdf2PasswordHasher();
    const phc = await strong.hash('a long passphrase');
    expect(phc).toMatch(/^\$pbkdf2-sha256\$i=600000\$/);
    expect(await strong.verify('a long passphrase', phc)).toBe(true);
    expect(await strong.verify('a long passphrasE', phc)).toBe(false);
  });

  it('rejects a nonsensical work factor', () => {
    expect(() => new Pbkdf2PasswordHasher({ iterations: 0 })).toThrow(RangeError);
    expect(() => new Pbkdf2PasswordHasher({ iterations: 1.5 })).toThrow(RangeError);
  });

  describe('costs the configured work factor on every verification, whatever the stored hash', () => {
    /** Node's PBKDF2, summing the work asked of it: iterations times output blocks of 32 bytes. */
    function counting() {
      const run = promisify(pbkdf2);
      const counter = { work: 0 };
      const fn: Pbkdf2 = (password, salt, iterations, keyLength) => {
        counter.work += iterations * Math.ceil(keyLength / 32);
        return run(password, salt, iterations, keyLength, 'sha256');
      };
      return { fn, counter };
    }
    const CONFIGURED = 20_000;

    it.each([
      ['at the configured cost', CONFIGURED],
      ['with fewer iterations (not upgraded yet)', 1_000],
      ['with a single iteration', 1],
    ])('a hash %s: a wrong and a right password cost at least the configured work', async (_label, stored) => {
      const phc = await new Pbkdf2PasswordHasher({ iterations: stored }).hash('correct horse');
      const { fn, counter } = counting();
      const hasher = new Pbkdf2PasswordHasher({ iterations: CONFIGURED, pbkdf2: fn });
      expect(await hasher.verify('wrong horse', phc)).toBe(false);
      expect(counter.work).toBe(CONFIGURED);
      counter.work = 0;
      expect(await hasher.verify('correct horse', phc)).toBe(true);
      expect(counter.work).toBe(CONFIGURED);
    });

    it('a stored key of two blocks counts as twice the work', async () => {
      const key = Buffer.alloc(64, 1).toString('base64').replace(/=+$/, '');
      const { fn, counter } = counting();
      const hasher = new Pbkdf2PasswordHasher({ iterations: CONFIGURED, pbkdf2: fn });
      expect(await hasher.verify('x', `$pbkdf2-sha256$i=${CONFIGURED / 4}$c2FsdHNhbHQ$${key}`)).toBe(false);
      expect(counter.work).toBe(CONFIGURED);
    });

    it.each(['', 'plain', '$pbkdf2-sha1$i=1$c2FsdA$AAAA', '$argon2id$v=19$m=1,t=1,p=1$c2FsdA$AAAA'])('a malformed hash %j costs a full verification', async (phc) => {
      const { fn, counter } = counting();
      const hasher = new Pbkdf2PasswordHasher({ iterations: CONFIGURED, pbkdf2: fn });
      expect(await hasher.verify('password', phc)).toBe(false);
      expect(counter.work).toBe(CONFIGURED);
    });

    it('an unknown user (verifyDummy) costs the same', async () => {
      const { fn, counter } = counting();
      await new Pbkdf2PasswordHasher({ iterations: CONFIGURED, pbkdf2: fn }).verifyDummy('password');
      expect(counter.work).toBe(CONFIGURED);
    });
  });
});
