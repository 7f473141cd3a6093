import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { analyzePaths } from '../../../src/offline/analyze.js';
import { analyzeIsolated } from '../../../src/offline/analyze-isolated.js';
import { DEFAULT_READ_LIMITS } from '../../../src/offline/collection.js';
import { parseJsonKeepingBigIntegers, parseYamlDocument } from '../../../src/offline/readers/documents.js';
import { MG_ROOT, mustGatherFiles, writeTarball } from '../../support/offline/offline-fixtures.js';

/**
 * Hostile files dropped into a DM: each stops at a limit with an answer naming it and
 * what to share instead, and the process that read it lives on.
 */

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'untrusted-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const PODS = `${MG_ROOT}/namespaces/openshift-etcd/core/pods.yaml`;
const SHARE_INSTEAD = /give the etcd and control-plane parts only \(namespaces\/openshift-etcd, etcd_info\//;

/** The healthy must-gather with its etcd namespace's pods.yaml replaced by `pods`. */
async function mustGatherWith(name: string, pods: string): Promise<string> {
  const files = mustGatherFiles('openshift-4.14-healthy').filter((f) => !f.path.endsWith('core/pods.yaml'));
  files.push({ path: PODS, content: pods });
  return writeTarball(join(tmp, name), files);
}

/** A YAML "billion laughs": nine aliases a level, nine levels (9^9 strings once expanded). */
function aliasBomb(): string {
  const lines = ['apiVersion: v1', 'kind: PodList', `l0: &l0 [${Array(9).fill('"lol"').join(',')}]`];
  for (let i = 1; i <= 9; i++)
    lines.push(
      `l${i}: &l${i} [${Array(9)
        .fill(`*l${i - 1}`)
        .join(',')}]`,
    );
  lines.push('items: [*l9]');
  return `${lines.join('\n')}\n`;
}

describe('a must-gather whose pods.yaml expands past the heap', () => {
  it('is refused before parsing, naming the file, the node limit and what to share instead', async () => {
    // 30 MB of `[0,0,…]`: ~15 million YAML nodes in a ~30 KB tarball.
    const path = await mustGatherWith('must-gather.tar.gz', `[${'0,'.repeat(15_000_000)}0]\n`);
    const refused = analyzeIsolated([path], { memoryMb: 64 });
    await expect(refused).rejects.toThrow(
      /namespaces\/openshift-etcd\/core\/pods\.yaml in .*must-gather\.tar\.gz holds more than 150,000 YAML nodes, over the limit for one document: give the etcd/,
    );
    await expect(refused).rejects.toThrow(SHARE_INSTEAD);
  });

  it('an alias bomb is refused the same way, not skipped in silence', async () => {
    const path = await mustGatherWith('laughs.tar.gz', aliasBomb());
    await expect(analyzePaths([path])).rejects.toThrow(
      /pods\.yaml in .*laughs\.tar\.gz holds aliases expanding past 100 nodes, over the limit for one document/,
    );
  });

  it('an analysis that still runs out of memory ends with an answer naming the limit; this process goes on', async () => {
    // 140,000 nodes pass the node limit but not a 32 MiB heap.
    const path = await mustGatherWith('heavy.tar.gz', `[${'0,'.repeat(140_000)}0]\n`);
    await expect(analyzeIsolated([path], { memoryMb: 32 })).rejects.toThrow(
      /heavy\.tar\.gz needs more than the 32 MiB memory limit for one analysis: share the etcd parts only/,
    );
    const good = await writeTarball(join(tmp, 'good.tar.gz'), mustGatherFiles('openshift-4.14-healthy'));
    await expect(analyzeIsolated([good], { memoryMb: 64 })).resolves.toMatchObject({ status: 'healthy' });
  });
});

describe('document limits', () => {
  it('counts YAML nodes, block and flow nesting, without building the document', () => {
    expect(() => parseYamlDocument(`[${'0,'.repeat(150_000)}0]`)).toThrow('more than 150,000 YAML nodes');
    expect(() => parseYamlDocument(`${'- '.repeat(101)}x\n`)).toThrow('nesting deeper than 100 levels');
    const keys = Array.from({ length: 101 }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
    expect(() => parseYamlDocument(`${keys} x\n`)).toThrow('nesting deeper than 100 levels');
    expect(() => parseYamlDocument(`${'['.repeat(101)}${']'.repeat(101)}`)).toThrow(
      'nesting deeper than 100 levels',
    );
    expect(() => parseYamlDocument(aliasBomb())).toThrow('aliases expanding past 100 nodes');
  });

  it('lets Kubernetes objects through: siblings at one column are one level, whatever their key length', () => {
    const pod = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: etcd-master-0',
      '  annotations: {a: "1", longer-key: "2"}',
      'spec:',
      '  containers:',
      '  - name: etcd',
      '    command:',
      '    - /bin/sh',
      '    - -c',
      '    - |',
      `${'      '.repeat(1)}${'x'.repeat(10)}`,
      ...Array.from({ length: 90 }, (_, i) => `    env${i}: v`),
    ].join('\n');
    expect(parseYamlDocument(pod)).toMatchObject({ kind: 'Pod', spec: { containers: [{ name: 'etcd' }] } });
    // 90 levels, under the limit.
    const keys = Array.from({ length: 90 }, (_, i) => `${' '.repeat(i)}k:`).join('\n');
    expect(() => parseYamlDocument(`${keys} x\n`)).not.toThrow();
  });

  it('counts JSON values and nesting in the pass that keeps big integers', () => {
    expect(() => parseJsonKeepingBigIntegers(`[${'0,'.repeat(2_000_000)}0]`)).toThrow(
      'more than 2,000,000 JSON values',
    );
    expect(() => parseJsonKeepingBigIntegers(`${'['.repeat(101)}${']'.repeat(101)}`)).toThrow(
      'nesting deeper than 100 levels',
    );
    // Brackets and commas inside strings are text.
    expect(parseJsonKeepingBigIntegers(`{"s": "${'[,'.repeat(200)}", "id": 10501334649042878790}`)).toEqual({
      s: '[,'.repeat(200),
      id: '10501334649042878790',
    });
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
    // 8 s alone; writing and reading 50,000 entries takes minutes on the shared 2-core host in a full run.
  }, 240_000);

  it('stops at 2,000 control-plane logs, each of which keeps a summary, long before the entry limit', async () => {
    const line =
      '2024-05-14T09:30:00.000000000Z {"level":"warn","ts":"2024-05-14T09:30:00.000Z","msg":"apply request took too long","took":"1.2s"}\n';
    const files = mustGatherFiles('openshift-4.14-healthy');
    for (let i = 0; i < 5000; i++)
      files.push({ path: `${MG_ROOT}/namespaces/x/pods/p${i}/etcd/etcd/logs/current.log`, content: line });
    const path = await writeTarball(join(tmp, 'etcd-logs.tar.gz'), files);
    await expect(analyzePaths([path])).rejects.toThrow(
      /more than 2000 control-plane container logs \(the last: namespaces\/x\/pods\/p\d+\/etcd\/etcd\/logs\/current\.log\), over the limit for one analysis: give the etcd/,
    );
  });
});
