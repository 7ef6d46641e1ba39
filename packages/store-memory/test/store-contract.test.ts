import { testStore, testStoreContract } from '@sl-accounts/store-contract';
import { createMemoryStore } from '@sl-accounts/store-memory';

/** Bounds small enough for the contract's floods to pass them (the defaults are 100,000 and 1,000). */
const bounds = { rateLimitKeys: 200, outboxMailsPerKind: 50 };

testStoreContract(await testStore('memory'), async () => {
  const store = createMemoryStore({ rateLimitKeys: bounds.rateLimitKeys, outboxCapacity: bounds.outboxMailsPerKind });
  return {
    store,
    inspect: {
      // The kept messages themselves: what the store would hand to nobody but a test.
      contactMessages: async () => [...store.contacts.messages],
      bounds,
    },
    close: () => store.close(),
  };
});
