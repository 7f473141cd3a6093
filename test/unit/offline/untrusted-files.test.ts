import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { analyzePaths } from '../../../src/offline/analyze.js';
import { analyzeIsolated } from '../../../src/offline/analyze-isolated.js';
import { DEFAULT_READ_LIMITS } from '../../../src/offline/collection.js';
import { MG_ROOT, mustGatherFiles, writeTarball } from '../../support/offline-fixtures.js';

/**
 * Hostile files dropped into a DM (issue 28): each stops at a limit with an answer naming it, and
 * the process that read it lives on.
 */

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'untrusted-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('a must-gather whose pods.yaml expands past the heap', () => {
  it('ends its analysis thread with an answer naming the memory limit; this process goes on', async () => {
    // 30 MB of `[0,0,0,…]`: under the 32 MiB document cap, ~15 million YAML nodes, a ~30 KB tarball.
    const files = mustGatherFiles('openshift-4.14-healthy').filter((f) => !f.path.endsWith('core/pods.yaml'));
    const bomb = `[${'0,'.repeat(15_000_000)}0]\n`;
    files.push({ path: `${MG_ROOT}/namespaces/openshift-etcd/core/pods.yaml`, content: bomb });
    const path = await writeTarball(join(tmp, 'must-gather.tar.gz'), files);
    await expect(analyzeIsolated([path], { memoryMb: 64 })).rejects.toThrow(
      /must-gather\.tar\.gz needs more than the 64 MiB memory limit for one analysis/,
    );
    // The same process still analyses the next file.
    const good = await writeTarball(join(tmp, 'good.tar.gz'), mustGatherFiles('openshift-4.14-healthy'));
    await expect(analyzeIsolated([good], { memoryMb: 64 })).resolves.toMatchObject({ status: 'healthy' });
  });
});

describe('caps on what a file unpacks to', () => {
  it('counts every byte a plain .log.gz decompresses to', async () => {
    const path = join(tmp, 'etcd.log.gz');
    await writeFile(path, gzipSync(Buffer.alloc(200 * 1024 ** 2, 'a')));
    await expect(
      analyzePaths([path], { limits: { ...DEFAULT_READ_LIMITS, maxTotalBytes: 1024 ** 2 } }),
    ).rejects.toThrow(/etcd\.log\.gz unpacks to more than 1 MiB, over the 1 MiB limit/);
  });

  it('stops a tarball of 50,000 tiny logs at the entry limit', async () => {
    const files = mustGatherFiles('openshift-4.14-healthy');
    for (let i = 0; i < 50_000; i++)
      files.push({
        path: `${MG_ROOT}/namespaces/x/pods/p${i}/c/c/logs/current.log`,
        content: 'x\n',
      });
    const path = await writeTarball(join(tmp, 'many.tar.gz'), files);
    await expect(analyzePaths([path])).rejects.toThrow(
      /many\.tar\.gz holds more than 30000 entries, over the 30000-entry limit for one archive/,
    );
  });
});
