import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { silentLogger } from '../../../src/logger.js';
import { createAnalyzeJob } from '../../../src/offline/analyze-job.js';
import type { AnalyzeJob } from '../../../src/queue/job-schemas.js';

/**
 * Downloads live in a volume sized for one set of files per analysis slot. A
 * worker container restarted after an OOM kill runs as the same pid in the same emptyDir: what its
 * killed run left is removed before the next download, not an hour later.
 */

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'download-dir-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function leftBehind(name: string, ageMs = 0): Promise<void> {
  const dir = join(root, name);
  await mkdir(join(dir, 'F0LEFT'), { recursive: true });
  await writeFile(join(dir, 'F0LEFT', 'must-gather.tar.gz'), Buffer.alloc(1024));
  const at = new Date(Date.now() - ageMs);
  await utimes(dir, at, at);
}

describe('the download directory of shared files', () => {
  it("removes what an earlier process with this pid left, and another's only once it is an hour old", async () => {
    await leftBehind(`etcd-doctor-analyze-${process.pid}-restarted`);
    await leftBehind(`etcd-doctor-analyze-${process.pid + 1}-running`);
    await leftBehind(`etcd-doctor-analyze-${process.pid + 2}-dead`, 2 * 3600_000);
    const chat = createMemoryAdapter();
    const analyze = createAnalyzeJob({
      chat,
      answer: async (_jobId, deliver) => {
        await deliver();
        return true;
      },
      logger: silentLogger,
      maxFileBytes: 1024 ** 2,
      tmpRoot: root,
    });
    // From a chat that is not the shell, host paths are refused: the run still sweeps and cleans up.
    const job: AnalyzeJob = {
      v: 1,
      kind: 'analyze',
      source: { kind: 'local', paths: ['/etc/hostname'] },
      requestId: 'r1',
      channel: 'C0MEMORY',
      user: 'U1',
      requestedAt: Date.now(),
    };
    await analyze.run(job, { jobId: 'j1', attempt: 1, signal: new AbortController().signal });
    expect(chat.messages.at(-1)?.text).toContain(
      'Paths on the etcd-doctor host are read only from the shell.',
    );
    expect((await readdir(root)).sort()).toEqual([`etcd-doctor-analyze-${process.pid + 1}-running`]);
  });
});
