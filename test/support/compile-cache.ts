/**
 * Setup file: Node's compile cache (`module.enableCompileCache`, in the OS's temporary directory)
 * for every module the suites load after it. Node then keeps each module's compiled code and, for
 * TypeScript, its stripped source, keyed by content, and a later run reads them instead of
 * compiling again. A changed file misses the cache and is compiled afresh.
 */
import { enableCompileCache } from 'node:module';

enableCompileCache();
