import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { requireVendorVersion } from './vendor-version.mjs';

/** The zod release whose v4/locales/index.js this patch was checked against. */
export const VENDOR = { pkg: 'zod', version: '4.6.7' };

const ZOD_LOCALES = /zod[\\/]v4[\\/]locales[\\/]index\.js$/;
const ZOD_EN = 'export { default as en } from "./en.js";';

/**
 * zod's `z` namespace holds every locale's error messages (`z.locales`, ~50 languages, 400 KB of
 * the 580 KB zod brings): the bundle keeps English, the one zod configures and the only one our
 * messages use (nothing calls z.config). The build fails if zod's locales index changes shape.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    requireVendorVersion('patch-zod-english-only.mjs', VENDOR.pkg, VENDOR.version);
    b.onLoad({ filter: ZOD_LOCALES }, async (args) => {
      const src = await readFile(args.path, 'utf8');
      if (!src.includes(ZOD_EN)) throw new Error(`${args.path}: zod's locales index has no English export as expected`);
      return { contents: ZOD_EN, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
