/**
 * Every option error names its option (issue 40, row 7), and a call with no options says what to
 * pass, where it said "createService: : is required".
 */
import { describe, expect, it } from 'vitest';
import { createService, SERVICE_OPTION_NAMES } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';

const refusal = async (options: unknown) => (await (createService as (o: unknown) => Promise<unknown>)(options).catch((e: unknown) => e)) as Error;

describe('createService names what is wrong', () => {
  it.each([['no argument', undefined], ['null', null], ['a string', 'sqlite'], ['an array', []]])('%s: says to pass an options object with a store', async (_, given) => {
    const error = await refusal(given);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/^createService needs an options object with at least a store, such as createService\(\{ store: createMemoryStore\(\) \}\)/);
    expect(error.message).not.toMatch(/: :/);
  });

  it.each([
    [{ mail: { pollMs: 'soon' } }, 'mail.pollMs'],
    [{ mail: { leaseMs: -1 } }, 'mail.leaseMs'],
  ])('%o: names the nested option', async (bad, name) => {
    const error = await refusal({ store: createMemoryStore(), ...bad });
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(new RegExp(`^createService: ${name.replace('.', '\\.')}: \\S`));
  });

  it.each(SERVICE_OPTION_NAMES.map((name) => [name]))('%s of a wrong type: the message starts with its name', async (name) => {
    const error = await refusal({ store: createMemoryStore(), [name]: Symbol('wrong') });
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(new RegExp(`^createService: ${name}: \\S`));
  });
});
