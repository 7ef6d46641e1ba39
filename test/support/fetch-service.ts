/**
 * The service composed for the web-standard entry's in-process tests: the memory store, the test
 * hasher, a mailer that keeps nothing. `useFetchService()` registers the closing of what `start`
 * composed after each case.
 */
import { afterEach } from 'vitest';
import { testHasher } from '@sl-accounts/service/http/testing';
import { createService, type Service, type ServiceOptions } from '@sl-accounts/service';
import { createMemoryStore } from '@sl-accounts/store-memory';

export function useFetchService(): (options?: Partial<ServiceOptions>) => Promise<Service> {
  let service: Service | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  return async (options = {}) => {
    await service?.close();
    return (service = await createService({ store: createMemoryStore(), hasher: testHasher, mailer: { send: async () => {} }, linkBase: 'http://localhost', ...options }));
  };
}

/** A JSON request to `url`. */
export const json = (method: string, url: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
