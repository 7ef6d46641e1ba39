/**
 * Preloaded into a server process by tests (`NODE_OPTIONS=--import=<this file>`): writes
 * `sdk-loads: loaded` to standard error when the MCP SDK is loaded, and with `REFUSE_SDK_LOADS=<n>`
 * makes the first n attempts to resolve it fail (each writes `sdk-loads: refused`), as a broken
 * install would.
 */
import { registerHooks } from 'node:module';

const SDK = '@modelcontextprotocol/server';
let refusals = Number(process.env.REFUSE_SDK_LOADS ?? 0);

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === SDK && refusals > 0) {
      refusals--;
      process.stderr.write('sdk-loads: refused\n');
      throw Object.assign(new Error(`Cannot find package '${SDK}' (refused by the test)`), { code: 'ERR_MODULE_NOT_FOUND' });
    }
    return next(specifier, context);
  },
  load(url, context, next) {
    if (url.includes(`/${SDK}/dist/index.`)) process.stderr.write('sdk-loads: loaded\n');
    return next(url, context);
  },
});
