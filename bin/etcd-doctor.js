#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npx etcd-doctor` works from a checkout
// with no build step. The container image runs the compiled dist/ instead.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/src/main.js', import.meta.url));
if (process.env.ETCD_DOCTOR_COMPILED === '1' && existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
