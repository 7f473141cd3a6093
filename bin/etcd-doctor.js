#!/usr/bin/env node
// The CLI runs the build output (`npm run build`): the esbuild bundle dist/cli/main.js (a few
// files to load), else tsc's dist/src/main.js (about 0.6 s), against seconds through a TypeScript
// loader. `health` and `diagnose` run dist/cli/check.cjs from V8's code cache (bin/code-cache.js).
//  - Installed (the image, a package): no src/ beside dist/, so dist/ it is.
//  - In a checkout: dist/ when it is at least as new as every file in src/; otherwise
//    (no build yet, or sources edited since) the sources run through tsx, a dev dependency, and a
//    terminal is told how to get the fast start. ETCD_DOCTOR_COMPILED=1 always runs dist/.
// CommonJS (bin/package.json): Node starts a CommonJS main file without its ES module loader, and
// the check bundle needs none (~10 ms of a health check); the other commands import() theirs.
'use strict';
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const root = `${join(__dirname, '..')}/`;
const bundled = `${root}dist/cli/main.js`;
const compiled = existsSync(bundled) ? bundled : `${root}dist/src/main.js`;
/** `health` and `diagnose` run the CommonJS copy of the bundle from V8's code cache (bin/code-cache.js). */
const checkBundle = `${root}dist/cli/check.cjs`;
const CHECKS = new Set(['health', 'diagnose']);

/** The newest modification time (ms) of the TypeScript sources, or 0 without any. */
function newestSource() {
  let newest = 0;
  for (const dir of ['src']) {
    if (!existsSync(root + dir)) continue;
    for (const entry of readdirSync(root + dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts'))
        newest = Math.max(newest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
    }
  }
  return newest;
}

function useCompiled() {
  if (!existsSync(compiled)) return false;
  if (process.env.ETCD_DOCTOR_COMPILED === '1' || !existsSync(`${root}src`)) return true;
  return statSync(compiled).mtimeMs >= newestSource();
}

/** Runs the check bundle when it serves this command line; false when it does not. */
async function runCheckBundle() {
  if (compiled !== bundled || !CHECKS.has(process.argv[2] ?? '') || !existsSync(checkBundle)) return false;
  const { canRunCached, loadCached } = require('./code-cache.js');
  if (!canRunCached()) return false;
  await loadCached(checkBundle, `${checkBundle}.cache`).exports.main();
  // The check is over (main awaited every probe, and closed the clients) and process.exitCode is
  // set: exit once stdout and stderr have taken what was written, instead of letting Node tear the
  // heap down as a natural end of the event loop does (~30 ms of CPU at every start).
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
  return true;
}

async function runSources() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write('etcd-doctor: no build in dist/; run `npm run build` first\n');
    process.exit(2);
  }
  if (process.stderr.isTTY)
    process.stderr.write(
      'etcd-doctor: dist/ is missing or older than src/, so the sources run through tsx (a slow start); `npm run build` once for the fast CLI\n',
    );
  register();
  await import(pathToFileURL(`${root}src/main.ts`).href);
}

/**
 * `digest` runs with the worker Deployment's heap cap unless one was given: V8 sizes its heap from
 * the machine (up to 4 GiB) and lets a digest's garbage grow into it (a 1,000-cluster digest peaked
 * at 424 MiB with the default heap of a 24 GiB host, 248 MiB at 256 MiB; docs/BENCHMARKS.md). The
 * cap is a V8 flag, fixed when the process starts, so the command runs in a child that has it.
 */
const HEAP_CAP = '--max-old-space-size=256';

function wantsHeapCap() {
  if (process.argv[2] !== 'digest') return false;
  return !/--max-old-space-size/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
}

function runWithHeapCap() {
  const { spawn } = require('node:child_process');
  const child = spawn(
    process.execPath,
    [HEAP_CAP, ...process.execArgv, __filename, ...process.argv.slice(2)],
    {
      stdio: 'inherit',
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      // Ended by a signal: end the same way (this process's forwarding handler goes first).
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}

async function start() {
  if (wantsHeapCap()) return runWithHeapCap();
  if (!useCompiled()) return runSources();
  if (!(await runCheckBundle())) await import(pathToFileURL(compiled).href);
}

// A rejection is unhandled, so Node prints it and exits 1, as a throw at the top level of an ES module did.
start();
