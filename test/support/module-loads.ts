/**
 * Preloaded into a server process by tests (`NODE_OPTIONS=--import=<this file>`): writes
 * `module-loads: loaded <package>` to standard error when one of the packages that a start should
 * not load before they are needed (the MCP SDK, prom-client) is loaded, and with
 * `REFUSE_SDK_LOADS=<n>` makes the first n attempts to resolve the MCP SDK fail (each writes
 * `module-loads: refused @modelcontextprotocol/server`), as a broken install would.
 */
import { registerHooks } from 'node:module';

const SDK = '@modelcontextprotocol/server';
const WATCHED = [SDK, 'prom-client'];
let refusals = Number(process.env.REFUSE_SDK_LOADS ?? 0);

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === SDK && refusals > 0) {
      refusals--;
      process.stderr.write(`module-loads: refused ${SDK}\n`);
      throw Object.assign(new Error(`Cannot find package '${SDK}' (refused by the test)`), { code: 'ERR_MODULE_NOT_FOUND' });
    }
    return next(specifier, context);
  },
  load(url, context, next) {
    // Each package's entry module, wherever pnpm put it.
    for (const name of WATCHED) if (new RegExp(`/node_modules/${name}/(dist/)?index\\.[cm]?js$`).test(url)) process.stderr.write(`module-loads: loaded ${name}\n`);
    return next(url, context);
  },
});
