import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

/**
 * The build patches the code of three packages as it bundles them (scripts/build-cli.mjs: zod's
 * locales, grpc-js's IPv6 check, etcd3's RPC definitions): a new release may move what a patch
 * finds, so package.json pins each exactly and the lockfile is not the only thing that holds it.
 */
const PATCHED = ['etcd3', 'zod', '@grpc/grpc-js'];

describe('the packages the build patches', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const build = readFileSync(new URL('../../scripts/build-cli.mjs', import.meta.url), 'utf8');

  it.each(PATCHED)('%s is pinned to one exact version, and the build still names it', (name) => {
    expect(pkg.dependencies[name]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(build).toContain(`'${name}'`);
  });
});
