import { testStore, testStoreContract } from '@sl/store-contract';
import { createMemoryStore } from '@sl/store-memory';

testStoreContract(await testStore('memory'), async () => {
  const store = createMemoryStore();
  return {
    store,
    // The kept messages themselves: what the store would hand to nobody but a test.
    inspect: { contactMessages: async () => [...store.contacts.messages] },
    close: () => store.close(),
  };
});
