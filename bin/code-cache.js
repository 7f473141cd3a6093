// Runs a CommonJS bundle (dist/cli/check.cjs: `health` and `diagnose`) from V8's code cache, made
// by `npm run build` (scripts/build-cli.mjs) beside it: V8 then deserializes the bytecode of the
// functions a check runs instead of parsing and compiling ~1.5 MB of JavaScript at every start
// (figures in docs/BENCHMARKS.md). Node 20 has no code cache for ES modules, hence
// CommonJS. The cache is read only, so an installed CLI needs no writable place; when V8 rejects it
// (another Node or V8 version, other V8 flags) the bundle compiles as any script does, only slower.
'use strict';
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { dirname } = require('node:path');
const vm = require('node:vm');

/**
 * Whether this Node can run the bundle: it needs require() of an ES module (20.19+) for the ESM-only
 * packages that the bundle's CommonJS require()s when a check needs them (@kubernetes/client-node,
 * for a cluster with `kubernetes` configured).
 */
function canRunCached() {
  return process.features.require_module === true;
}

/**
 * The bundle's import() (scripts/build-cli.mjs renames it): code restored from a cache on Node 20 has
 * no import() callback of its own. Bare specifiers only, which resolve from here as from dist/cli/:
 * both are in the package, beside node_modules/.
 */
const dynamicImport = (specifier) => import(specifier);

/**
 * Loads `file` as Node loads a CommonJS file, but compiled with the cache in `cacheFile` (absent:
 * compiled as usual). The module is in require.cache with `codeCache` saying what V8 did with the
 * cache: 'accepted', 'rejected' or 'absent' (test/support/process/module-graph-preload.mjs records it).
 */
function loadCached(file, cacheFile) {
  // The build checks the file is ASCII: read as latin1 it is the same text, copied rather than
  // decoded (UTF-8 decoding of 2 MB costs ~10-20 ms). It is already wrapped, as
  // `(function (exports, require, module, __filename, __dirname, __impt) { ... })`.
  const source = readFileSync(file, 'latin1');
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(source, { filename: file, cachedData });
  const require = Module.createRequire(file);
  const module = new Module(file);
  module.filename = file;
  module.codeCache =
    cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted';
  require.cache[file] = module;
  const run = script.runInThisContext();
  run.call(module.exports, module.exports, require, module, file, dirname(file), dynamicImport);
  module.loaded = true;
  return {
    exports: module.exports,
    codeCache: module.codeCache,
    createCachedData: () => script.createCachedData(),
  };
}

module.exports = { canRunCached, loadCached };
