import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { knownBugsOf } from '../../../src/etcd/known-bugs.js';
import { judgeUpgrade } from '../../../src/lifecycle/upgrade-check.js';
import { MINOR_UPGRADES } from '../../../src/lifecycle/upgrade-rules.js';
import { parseEtcdPodSpec } from '../../../src/probes/kubernetes/etcd-pod-spec.js';

/*
 * etcd 3.6 and 3.7 as recorded from their source at the release tags: no binary of either exists
 * here (Debian ships 3.5.30 at most; docs/development.md), so these shapes are the tests.
 */

const experimental36 = readFileSync(
  new URL('../../fixtures/etcd-source/v3.6.0-experimental-flags.txt', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((l) => l && !l.startsWith('#'));

/** A kubeadm etcd static pod with these extra flags (kubeadm writes `--flag=value` words). */
function kubeadmPod(version: string, flags: string[]): V1Pod {
  return {
    metadata: { name: 'etcd-master-1', namespace: 'kube-system' },
    spec: {
      nodeName: 'master-1',
      containers: [
        {
          name: 'etcd',
          image: `registry.k8s.io/etcd:${version}-0`,
          command: ['etcd', '--name=master-1', '--data-dir=/var/lib/etcd', ...flags],
        },
      ],
    },
  };
}

const members = (version: string) =>
  ['master-1', 'master-2', 'master-3'].map((name) => ({ name, version, isLearner: false }));

function check36to37(flags: string[]) {
  const spec = parseEtcdPodSpec(kubeadmPod('3.6.14', flags));
  return judgeUpgrade({
    cluster: 'prod',
    target: '3.7',
    members: members('3.6.14'),
    v2: [],
    podFlags: [{ member: 'master-1', flags: new Map(Object.entries(spec.upgradeFlags ?? {})) }],
    backup: { file: 'a.db', ageHours: 1, maxAgeHours: 24 },
  });
}

describe('etcd 3.6 and 3.7 shapes', () => {
  it('every --experimental-* flag of v3.6.0 has its 3.7 replacement named', () => {
    expect(experimental36).toHaveLength(24);
    const removed = MINOR_UPGRADES['3.7']?.removedFlags ?? {};
    for (const flag of experimental36) expect(removed[flag]).toMatch(/^--/);
  });

  it('3.6 kubeadm with --feature-gates=InitialCorruptCheck=true (the 3.6 form): nothing 3.7 removes', () => {
    const r = check36to37(['--feature-gates=InitialCorruptCheck=true', '--max-learners=1']);
    expect(r.blockers.find((b) => b.check === 'removed-flags')).toBeUndefined();
    expect(r.passed.find((p) => p.check === 'removed-flags')?.summary).toMatch(
      /^no pod sets a flag 3\.7 removes/,
    );
  });

  it('the experimental form left in a 3.6 manifest blocks 3.7, naming the feature gate', () => {
    const r = check36to37([
      '--experimental-initial-corrupt-check=true',
      '--experimental-compact-hash-check-enabled',
    ]);
    const b = r.blockers.find((x) => x.check === 'removed-flags');
    expect(b?.members).toEqual(['master-1']);
    expect(b?.fix).toBe(
      'replace --experimental-initial-corrupt-check with --feature-gates=InitialCorruptCheck=true; replace --experimental-compact-hash-check-enabled with --feature-gates=CompactHashCheck=true',
    );
  });

  it('the replacement keeps the value the pod gives, merged into the --feature-gates it already has', () => {
    const r = check36to37([
      '--experimental-initial-corrupt-check=false',
      '--feature-gates=CompactHashCheck=true',
    ]);
    expect(r.blockers.find((x) => x.check === 'removed-flags')?.fix).toBe(
      "replace --experimental-initial-corrupt-check with InitialCorruptCheck=false added to the pod's --feature-gates: --feature-gates=CompactHashCheck=true,InitialCorruptCheck=false",
    );
  });

  it('Status versions of 3.6 and 3.7 releases and pre-releases are read', () => {
    expect(knownBugsOf('3.6.4', { memberCount: 3 }).map((h) => h.bug.id)).toContain('etcd-20653');
    expect(knownBugsOf('3.7.0', { memberCount: 3 }).map((h) => h.range.fixed)).toEqual(['3.7.1', '3.7.1']);
    expect(knownBugsOf('3.7.1', { memberCount: 3 })).toEqual([]);
  });
});

describe('upgrade-check on a 3.6 cluster mid-downgrade (Status downgradeInfo, v3.6.0 rpc.proto field 13)', () => {
  const base = {
    cluster: 'prod',
    target: '3.7' as const,
    v2: [],
    backup: { file: 'a.db', ageHours: 1, maxAgeHours: 24 },
  };
  it('a downgrade enabled blocks the upgrade, naming the members that report it', () => {
    const downgrade = { enabled: true, targetVersion: '3.5.0' };
    const result = judgeUpgrade({
      ...base,
      members: members('3.6.14').map((m) => ({ ...m, downgrade })),
    });
    expect(result.ready).toBe(false);
    expect(result.blockers.find((b) => b.check === 'downgrade-in-progress')).toMatchObject({
      members: ['master-1', 'master-2', 'master-3'],
      summary: expect.stringContaining('A downgrade to 3.5.0 is enabled'),
      fix: expect.stringContaining('etcdctl downgrade cancel'),
    });
  });

  it('3.6 members reporting none pass it; 3.5 members (no such field) get no verdict', () => {
    const none = { enabled: false, targetVersion: '' };
    const on36 = judgeUpgrade({
      ...base,
      members: members('3.6.14').map((m) => ({ ...m, downgrade: none })),
    });
    expect(on36.passed.map((p) => p.check)).toContain('downgrade-in-progress');
    const on35 = judgeUpgrade({ ...base, target: '3.6', members: members('3.5.32') });
    expect([...on35.passed, ...on35.unchecked, ...on35.blockers].map((v) => v.check)).not.toContain(
      'downgrade-in-progress',
    );
  });
});
