// Each patch of vendor code in the CLI bundle (scripts/build-cli/patch-*.mjs) is written against one
// release of its package: a string it looks for can still be there in another release while the code
// around it means something else. So a patch names the version it was checked against, and the build
// stops on any other until someone reads the new code and moves the version on.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The version in node_modules/<pkg>/package.json (the copy the bundle takes). */
export function installedVersion(pkg) {
  return JSON.parse(readFileSync(`${ROOT}node_modules/${pkg}/package.json`, 'utf8')).version;
}

/** Throws, naming the patch, unless node_modules holds exactly `version` of `pkg`. */
export function requireVendorVersion(patch, pkg, version) {
  const installed = installedVersion(pkg);
  if (installed !== version)
    throw new Error(
      `scripts/build-cli/${patch}: written for ${pkg} ${version}, but node_modules has ${pkg} ${installed}. ` +
        `Read the new ${pkg} code the patch edits, check the patch still holds, then set its version to ${installed}.`,
    );
}
