/**
 * Setup file of `pnpm test:unit` (vitest.unit.config.ts): no socket, process or embedded database
 * in its workers, and the suites' fetch calls to test servers answered in-process.
 */
import { guardInProcess } from './in-process-guard.ts';
import { routeFetchInProcess } from './in-process.ts';

guardInProcess();
routeFetchInProcess();
