import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The child's entry: tsc's and esbuild's output hold analyze-child.js beside this file. From the
 * sources (tests, a checkout without a build), analyze-child.ts is bundled by esbuild (a dev
 * dependency the built code never reaches) into one file, as dist/cli/ holds it, once per process
 * and named by its content in the checkout's .etcd-doctor/ (git ignores it): each analysis then
 * starts in ~0.2 s of CPU with the memory of the built code, where tsx's loader took 1.2 s and 46 MiB more.
 */
export function analyzeChildEntry(): Promise<string> {
  const js = fileURLToPath(new URL('./analyze-child.js', import.meta.url));
  if (existsSync(js)) return Promise.resolve(js);
  sourcesBundle ??= bundleSources();
  return sourcesBundle;
}

/** One bundle per process: a memo of the sources as they were when the first analysis started. */
let sourcesBundle: Promise<string> | undefined;

async function bundleSources(): Promise<string> {
  const { build } = await import('esbuild');
  const { outputFiles } = await build({
    entryPoints: [fileURLToPath(new URL('./analyze-child.ts', import.meta.url))],
    write: false,
    outfile: 'analyze-child.mjs',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // The CommonJS packages bundled in call require() for Node's builtins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  const [bundle] = outputFiles;
  if (!bundle) throw new Error('esbuild wrote no analyze-child bundle');
  const dir = fileURLToPath(new URL('../../.etcd-doctor/analyze-child/', import.meta.url));
  const path = join(dir, `${createHash('sha256').update(bundle.contents).digest('hex').slice(0, 16)}.mjs`);
  if (existsSync(path)) return path;
  await mkdir(dir, { recursive: true });
  // Another process may write the same file at once: each renames a whole one into place.
  const partial = `${path}.${process.pid}`;
  await writeFile(partial, bundle.contents);
  await rename(partial, path);
  return path;
}
