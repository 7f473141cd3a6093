import { describe, expect, it } from '@jest/globals';
import { parseTarget } from '../../../src/lifecycle/gather-upgrade.js';
import { judgeUpgrade, type UpgradeInput } from '../../../src/lifecycle/upgrade-check.js';

function input(
  over: { [K in keyof UpgradeInput]?: UpgradeInput[K] | undefined } = {},
  version = '3.5.33',
): UpgradeInput {
  const made: UpgradeInput = {
    cluster: 'prod',
    target: '3.6',
    members: ['etcd-1', 'etcd-2', 'etcd-3'].map((name) => ({ name, version, isLearner: false })),
    v2: ['etcd-1', 'etcd-2', 'etcd-3'].map((member) => ({ member, state: 'off' as const })),
    podFlags: ['etcd-1', 'etcd-2', 'etcd-3'].map((member) => ({ member, flags: new Map<string, string>() })),
    backup: { file: 'a.db', ageHours: 2, maxAgeHours: 24 },
  };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) delete (made as unknown as Record<string, unknown>)[k];
    else (made as unknown as Record<string, unknown>)[k] = v;
  }
  return made;
}

const blockerOf = (i: UpgradeInput, check: string) => judgeUpgrade(i).blockers.find((b) => b.check === check);

describe('upgrade-check', () => {
  it('3.5.33 everywhere, v2 off, a fresh backup: READY, every check passed', () => {
    const r = judgeUpgrade(input());
    expect(r.ready).toBe(true);
    expect(r.blockers).toEqual([]);
    expect(r.passed.map((p) => p.check)).toEqual([
      'one-minor',
      'mixed-versions',
      'patch-level',
      'v2-store',
      'removed-flags',
      'learners',
      'failure-margin',
      'backup',
    ]);
  });

  it('patch level: 3.5.31 is below the 3.5.32 the 3.6 guide asks for; 3.5.32 is not', () => {
    expect(blockerOf(input({}, '3.5.31'), 'patch-level')?.fix).toBe(
      'Upgrade etcd-1, etcd-2 and etcd-3 to 3.5.32 or later, one member at a time',
    );
    expect(blockerOf(input({}, '3.5.32'), 'patch-level')).toBeUndefined();
    expect(blockerOf(input({ target: '3.7' }, '3.6.10'), 'patch-level')?.summary).toContain(
      '3.6.11 or later',
    );
  });

  it('3.4 to 3.6: through 3.5 first', () => {
    const b = blockerOf(input({}, '3.4.23'), 'one-minor');
    expect(b?.fix).toBe(
      'Upgrade to 3.5 first (its newest patch), then to 3.6: etcd-doctor upgrade-check prod --to 3.5',
    );
  });

  it('--enable-v2=true in a pod spec blocks 3.6 even when the v2 API does not answer', () => {
    const podFlags = input().podFlags?.map((p, i) =>
      i === 1 ? { ...p, flags: new Map([['enable-v2', 'true']]) } : p,
    );
    const b = blockerOf(input({ podFlags }), 'v2-store');
    expect(b?.members).toEqual(['etcd-2']);
    expect(b?.fix).toContain('Remove --enable-v2');
  });

  it('3.7 removes the experimental flags, naming their replacements', () => {
    const podFlags = [
      { member: 'etcd-1', flags: new Map([['experimental-initial-corrupt-check', 'true']]) },
      { member: 'etcd-2', flags: new Map([['experimental-compaction-batch-limit', '1000']]) },
    ];
    const b = blockerOf(input({ target: '3.7', podFlags }, '3.6.14'), 'removed-flags');
    expect(b?.members).toEqual(['etcd-1', 'etcd-2']);
    expect(b?.fix).toBe(
      'replace --experimental-initial-corrupt-check with --feature-gates=InitialCorruptCheck=true; replace --experimental-compaction-batch-limit with --compaction-batch-limit',
    );
  });

  it('no pod spec: the removed flags are not checked, never passed', () => {
    const r = judgeUpgrade(input({ target: '3.7', podFlags: undefined }, '3.6.14'));
    expect(r.unchecked.map((u) => u.check)).toEqual(['removed-flags']);
    expect(r.passed.map((p) => p.check)).not.toContain('removed-flags');
  });

  it('learners over --max-learners, one member down with no margin, an old backup, mixed minors', () => {
    const members = [
      { name: 'etcd-1', version: '3.5.33', isLearner: false },
      { name: 'etcd-2', version: null, isLearner: false },
      { name: 'etcd-3', version: '3.6.14', isLearner: false },
      { name: 'etcd-4', version: '3.5.33', isLearner: true },
      { name: 'etcd-5', version: '3.5.33', isLearner: true },
    ];
    const r = judgeUpgrade(input({ members, backup: { file: 'old.db', ageHours: 50, maxAgeHours: 24 } }));
    expect(r.blockers.map((b) => b.check).sort()).toEqual(
      ['backup', 'failure-margin', 'learners', 'mixed-versions', 'patch-level'].sort(),
    );
    const three = judgeUpgrade(input({ members: members.slice(0, 3) }));
    expect(three.blockers.find((b) => b.check === 'failure-margin')?.members).toEqual(['etcd-2']);
  });

  it('kubeadm 1.33 installs etcd 3.5: 3.6 comes with Kubernetes 1.34', () => {
    const b = blockerOf(input({ kubernetes: { distribution: 'kubeadm', gitVersion: 'v1.33.4' } }), 'kubeadm');
    expect(b?.summary).toContain('kubeadm 1.33 installs etcd 3.5, not 3.6');
    const ok = judgeUpgrade(input({ kubernetes: { distribution: 'kubeadm', gitVersion: 'v1.34.1' } }));
    expect(ok.passed.map((p) => p.check)).toContain('kubeadm');
  });

  it('--to must be a known minor', () => {
    expect(parseTarget('3.6')).toBe('3.6');
    expect(parseTarget('v3.7.1')).toBe('3.7');
    expect(() => parseTarget('4.0')).toThrow(
      '"4.0" is not an etcd minor etcd-doctor knows: use --to with one of 3.4, 3.5, 3.6, 3.7',
    );
  });

  it('--v2-deprecation=write-only on every pod is said beside a v2 API that is off', () => {
    const podFlags = ['etcd-1', 'etcd-2', 'etcd-3'].map((member) => ({
      member,
      flags: new Map([['v2-deprecation', 'write-only']]),
    }));
    const r = judgeUpgrade(input({ podFlags }));
    expect(r.passed.find((p) => p.check === 'v2-store')?.summary).toContain(
      'every pod runs --v2-deprecation at write-only or later',
    );
  });
});
