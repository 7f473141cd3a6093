import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import type { Evidence } from '../../../src/probes/evidence.js';
import { failed, ok } from '../../support/evidence/evidence.js';
import { etcdPart, KUBEADM_MEMBERS, useScenario, withKubernetes } from '../../support/kube/kube-evidence.js';

/**
 * The shapes of a member that is not (or no longer) one of the cluster, and of peers refused for
 * TLS, as a live diagnosis reads them: the etcd pods' logs through the (fake) Kubernetes API, zap
 * lines of etcd 3.5 as rafthttp, embed and etcdmain write them. Each finding has its fix in one step.
 */
const refused = failed(
  'unreachable',
  'https://127.20.0.13:2379 refused the connection (connect ECONNREFUSED)',
);

function live(
  kubernetes: Parameters<typeof withKubernetes>[1],
  opts: { master3?: 'down' | 'removed' } = {},
): Evidence {
  const etcd = etcdPart(
    KUBEADM_MEMBERS,
    opts.master3 ? { 'master-3': { status: refused, health: refused, metrics: refused } } : {},
  );
  // Removed: the cluster's member list (from master-1 and master-2) no longer holds master-3.
  const memberList =
    opts.master3 === 'removed' && etcd.memberList.ok
      ? ok(etcd.memberList.data.filter((m) => m.name !== 'master-3'))
      : etcd.memberList;
  return withKubernetes({ ...etcd, memberList }, kubernetes);
}

describe('peer TLS refused: master-3 presents a certificate without its IP', () => {
  const run = useScenario('peer-tls');

  it('names master-3, the member whose certificate the others refuse, with the reason and one fix', () => {
    const result = diagnose(live(run.kubernetes), rules, { now: run.now });
    const [first] = result.findings;
    expect(first).toMatchObject({ cause: 'peer-tls', severity: 'critical', members: ['master-3'] });
    expect(first?.summary).toBe(
      'master-3 has its peer certificate refused (tls: "127.20.0.13" does not match any of DNSNames ["master-3"] (master-1)), so no peer link forms with master-1 and master-2',
    );
    expect(first?.steps).toHaveLength(1);
    expect(first?.steps[0]?.text).toMatch(
      /^Reissue the peer certificates with every member's peer IP and DNS name in the SAN/,
    );
    // master-3's failed probes of master-1 are the same refusal: nothing else is live and unexplained.
    for (const f of result.findings.slice(1))
      expect(f.causedBy === 'peer-tls' || f.severity === 'info').toBe(true);
  });
});

describe('a removed member still running (its static pod restarts it)', () => {
  const run = useScenario('removed-member');

  it('names master-3 as removed, not as down, and says to stop it and clear its data dir', () => {
    const result = diagnose(live(run.kubernetes, { master3: 'removed' }), rules, { now: run.now });
    const [first, ...rest] = result.findings;
    expect(first).toMatchObject({ cause: 'cluster-mismatch', severity: 'critical', members: ['master-3'] });
    expect(first?.summary).toBe('master-3 was removed from the cluster but still runs');
    expect(first?.evidence).toEqual(
      expect.arrayContaining([
        'master-3: 4 × removed from the cluster, 09:21:11–09:24:14',
        'master-3: 8 × stream refused by its peers as a removed member, 09:21:11–09:24:14',
      ]),
    );
    expect(first?.steps.map((s) => s.text)).toEqual([
      expect.stringMatching(/^Stop master-3 for good and move its data dir aside/),
    ]);
    for (const f of rest) expect(f.causedBy).toBe('cluster-mismatch');
  });
});

describe('member … has already been bootstrapped (started as new on an empty data dir)', () => {
  const run = useScenario('already-bootstrapped');

  it('names master-3, whose data is gone: check --data-dir, else remove and re-add it empty', () => {
    const result = diagnose(live(run.kubernetes, { master3: 'down' }), rules, { now: run.now });
    const [first] = result.findings;
    expect(first).toMatchObject({ cause: 'cluster-mismatch', members: ['master-3'] });
    expect(first?.summary).toBe(
      'master-3 cannot start: its data dir holds no WAL, so it starts as a new member, but the cluster already knows it (member … has already been bootstrapped): its data was lost or --data-dir is wrong',
    );
    expect(first?.steps.map((s) => s.text)).toEqual([
      expect.stringMatching(
        /^Check master-3's --data-dir .* `etcdctl member remove <id>`, then, to have it back, `etcdctl member add/,
      ),
    ]);
    expect(result.findings.find((f) => f.cause === 'member-down')).toMatchObject({
      members: ['master-3'],
      causedBy: 'cluster-mismatch',
    });
  });
});
