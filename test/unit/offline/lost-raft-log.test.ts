import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { analyzePaths } from '../../../src/offline/analyze.js';

/** etcd-io/etcd#12483's lines: a member on tmpfs, rebooted, panics on the leader's first heartbeat. */
const LOST = [
  '2020-11-23 01:59:35.057591 I | raft: 586b7dc1b206294f [term: 1] received a MsgHeartbeat message with higher term from e185b68274d2c88a [term: 3]',
  '2020-11-23 01:59:35.057624 I | raft: 586b7dc1b206294f became follower at term 3',
  '2020-11-23 01:59:35.057649 C | raft: tocommit(109) is out of range [lastIndex(0)]. Was the raft log corrupted, truncated, or lost?',
  'panic: tocommit(109) is out of range [lastIndex(0)]. Was the raft log corrupted, truncated, or lost?',
].join('\n');

describe('a raft log lost, from a log alone (no pod spec)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lost-raft-log-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names non-durable storage as a warning, with what the log cannot tell', async () => {
    const path = join(dir, 'etcd-1.log');
    await writeFile(path, `${LOST}\n`);
    const report = await analyzePaths([path]);
    expect(report.findings[0]).toMatchObject({
      cause: 'non-durable-storage',
      severity: 'warning',
      members: ['etcd-1'],
      summary:
        'etcd-1 lost raft log entries it had acknowledged (tocommit out of range): its data dir did not keep what it wrote',
    });
    expect(report.findings.some((f) => f.cause === 'etcd-crash')).toBe(false);
  });
});
