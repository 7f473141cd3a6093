import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ClusterState, MemberState } from '../../../src/remediation/actions/cluster-state.js';
import {
  etcdRestartRefusal,
  MANIFEST_MOVER_SCRIPT,
} from '../../../src/remediation/actions/restart-static-pod.js';

const member = (name: string, extra: Partial<MemberState> = {}): MemberState => ({
  name,
  endpoint: `http://127.0.0.1:2379/${name}`,
  id: name,
  isLearner: false,
  reachable: true,
  isLeader: false,
  dbSizeBytes: 1,
  dbSizeInUseBytes: undefined,
  revision: 1,
  appliedIndex: 10,
  errors: [],
  problem: undefined,
  ...extra,
});
const down = { reachable: false, problem: 'did not answer Status' };
/** As readClusterState counts: voting members only, learners excluded. */
const state = (members: MemberState[]): ClusterState => {
  const voting = members.filter((m) => !m.isLearner);
  return {
    members,
    quorum: Math.floor(voting.length / 2) + 1,
    healthyVoting: voting.filter((m) => m.reachable && !m.problem).length,
  };
};

describe('the etcd restart guard (KB R2)', () => {
  it('matches the node to its member case-insensitively, and refuses taking the last spare voter out', () => {
    // etcd names members after the hostname as it was started; node names are lowercase.
    const cluster = state([member('Master-1'), member('master-2', down), member('MASTER-3')]);
    expect(etcdRestartRefusal(cluster, 'master-1')).toMatch(
      /quorum is 2 and only 1 other healthy voting member\(s\) would remain \(master-2 unhealthy\)/,
    );
    expect(
      etcdRestartRefusal(state([member('Master-1'), member('master-2'), member('MASTER-3')]), 'master-3'),
    ).toBeUndefined();
  });

  it('refuses when the node matches no member, or when members are only known by URL', () => {
    const cluster = state([member('etcd-1'), member('etcd-2'), member('etcd-3', down)]);
    expect(etcdRestartRefusal(cluster, 'master-9')).toMatch(
      /matches no member of the member list \(etcd-1, etcd-2, etcd-3\)/,
    );
    // Every member-list call failed: readClusterState names members by their client URL.
    const byUrl = state([
      member('http://127.0.0.1:2379'),
      member('http://127.0.0.1:2381', down),
      member('http://127.0.0.1:2383'),
    ]);
    expect(etcdRestartRefusal(byUrl, 'master-1')).toMatch(/matches no member/);
  });

  it('refuses an ambiguous match, and costs no quorum for a learner', () => {
    expect(etcdRestartRefusal(state([member('a'), member('A'), member('b')]), 'a')).toMatch(
      /matches 2 members/,
    );
    const withLearner = state([
      member('a'),
      member('b'),
      member('c', down),
      member('d', { isLearner: true }),
    ]);
    expect(etcdRestartRefusal(withLearner, 'd')).toBeUndefined();
    expect(etcdRestartRefusal(withLearner, 'a')).toMatch(/would lose quorum/);
  });
});

describe('the helper pod script (busybox sh; run here with /bin/sh)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const run = (notAfter: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'etcd-doctor-manifests-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'etcd.yaml'), 'kind: Pod\n');
    const res = spawnSync('/bin/sh', ['-c', MANIFEST_MOVER_SCRIPT], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        MANIFESTS_DIR: dir,
        MANIFEST: 'etcd.yaml',
        HOLD_SECONDS: '0',
        NOT_AFTER: String(notAfter),
      },
      encoding: 'utf8',
      timeout: 10_000,
    });
    return { ...res, dir };
  };

  it('moves nothing once the deadline of the quorum check has passed', () => {
    const late = run(Math.floor(Date.now() / 1000) - 30);
    expect(late.status).toBe(5);
    expect(late.stdout).toMatch(/s after the deadline of the quorum check; not moving etcd.yaml/);
    expect(readdirSync(late.dir)).toEqual(['etcd.yaml']);
  });

  it('before the deadline, moves the manifest out and back', () => {
    const ok = run(Math.floor(Date.now() / 1000) + 60);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/moved etcd.yaml out\nmoved etcd.yaml back/);
    expect(existsSync(join(ok.dir, 'etcd.yaml'))).toBe(true);
  });
});
