import { testStore, testStoreContract } from '@sl-accounts/store-contract';
import { createMemoryStore } from '@sl-accounts/store-memory';

testStoreContract(await testStore('memory'), async () => {
  const store = createMemoryStore();
  return {
    store,
    // The kept messages themselves: what the store would hand to nobody but a test.
    inspect: { contactMessages: async () => [...store.contacts.messages] },
    close: () => store.close(),
  };
});
