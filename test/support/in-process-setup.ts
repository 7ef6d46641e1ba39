/** Setup file of `pnpm test:unit` (vitest.unit.config.ts): requests to `handle` test servers go in-process. */
import { routeFetchInProcess } from './in-process.ts';

routeFetchInProcess();
