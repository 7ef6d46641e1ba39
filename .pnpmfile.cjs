// The published manifests of the carried packages (issue 35, ADR 0040). `@sl-accounts/service`
// carries the code of the packages its manifest lists under "carries" (core, http, discovery, mcp,
// mail-smtp, http-fetch, http-node, http-hono) in its own tarball, under dist/<short>/ and the export subpaths
// `@sl-accounts/service/<short>`; scripts/build-package.ts copies their builds there. So:
//  - the service's published manifest exports those subpaths and depends on what the carried
//    packages depend on (their third-party packages), not on the carried packages themselves;
//  - each carried package is published as a facade: dist/facade/ re-exports the service's subpath,
//    and it depends on `@sl-accounts/service` alone (one copy of the code, whichever name imports it).
// pnpm's beforePacking hook (pnpm 10) is the one place where `pnpm pack` lets a manifest's
// dependencies and files differ from the workspace's; publishConfig overrides exports only.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const SERVICE_DIR = join(__dirname, 'packages/service');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** { short: package directory name } from the service's manifest. */
function carried() {
  return readJson(join(SERVICE_DIR, 'package.json')).carries ?? {};
}

/** `./testing` of core, under short `core`, is `./core/testing`; `.` is `./core`. */
const subpathIn = (short, subpath) => (subpath === '.' ? `./${short}` : `./${short}/${subpath.slice(2)}`);
/** `./dist/testing.js` under dist/<dir>/ is `./dist/<dir>/testing.js`. */
const targetIn = (dir, target) => target.replace(/^\.\/dist\//, `./${dir}/`);

function beforePacking(manifest) {
  const carries = carried();
  const byName = new Map(Object.entries(carries).map(([short, packageDir]) => [readJson(join(__dirname, 'packages', packageDir, 'package.json')).name, { short, packageDir }]));
  if (manifest.name === '@sl-accounts/service') {
    const { carries: _omitted, ...published } = manifest;
    const exports = { ...published.exports };
    const dependencies = { ...published.dependencies };
    const peerDependencies = { ...published.peerDependencies };
    const peerDependenciesMeta = { ...published.peerDependenciesMeta };
    for (const [name, { short, packageDir }] of byName) {
      const inner = readJson(join(__dirname, 'packages', packageDir, 'package.json'));
      for (const [subpath, target] of Object.entries(inner.publishConfig.exports)) {
        exports[subpathIn(short, subpath)] = { types: targetIn(`dist/${short}`, target.types), default: targetIn(`dist/${short}`, target.default) };
      }
      for (const [dep, range] of Object.entries(inner.dependencies ?? {})) if (!byName.has(dep) && !dep.startsWith('@sl-accounts/')) dependencies[dep] = range;
      // Optional here: only the subpath that imports one needs it (hono for `/hono`), and npm would
      // otherwise install every carried package's framework into every app.
      for (const [dep, range] of Object.entries(inner.peerDependencies ?? {})) {
        peerDependencies[dep] = range;
        peerDependenciesMeta[dep] = { optional: true };
      }
      delete dependencies[name];
      if (published.devDependencies) delete published.devDependencies[name];
    }
    const result = { ...published, exports, dependencies };
    if (result.devDependencies && Object.keys(result.devDependencies).length === 0) delete result.devDependencies;
    if (Object.keys(peerDependencies).length > 0) result.peerDependencies = peerDependencies;
    if (Object.keys(peerDependenciesMeta).length > 0) result.peerDependenciesMeta = peerDependenciesMeta;
    return result;
  }
  const own = byName.get(manifest.name);
  if (own) {
    const service = readJson(join(SERVICE_DIR, 'package.json'));
    const exports = {};
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      exports[subpath] = { types: targetIn('dist/facade', target.types), default: targetIn('dist/facade', target.default) };
    }
    const { dependencies: _dropped, ...rest } = manifest;
    return { ...rest, exports, files: ['dist/facade'], dependencies: { '@sl-accounts/service': `^${service.version}` } };
  }
  return manifest;
}

module.exports = { hooks: { beforePacking } };
