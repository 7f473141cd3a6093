import { describe, expect, it } from '@jest/globals';
import type { Evidence } from '../../../src/probes/evidence.js';
import { renderText } from '../../../src/report/render-text.js';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';
import { aboutTheCluster } from '../../support/evidence/findings.js';

/**
 * kubeadm's learner mode adds every joining control-plane member as a learner first. A real 4th
 * member joins with `etcdctl member add --learner`: it refuses linearizable reads, it does not
 * vote, and quorum is 2 of the 3 voters with one failure to spare whatever the learner does.
 */
/** Findings about membership and quorum: what learners change. */
const MEMBERSHIP: string[] = ['member-down', 'quorum-lost', 'unreachable-from-here', 'no-access'];

describe('a 3-voter cluster with a learner', () => {
  const t = useLabDoctor();

  it('a healthy learner: shown as a learner, checked with a serializable read, only offered promotion', async () => {
    const learner = await t.lab.addLearner();
    expect(learner.name).toBe('etcd-4');
    let evidence: Evidence | undefined;
    const health = await t.doctor.run('lab', 'health', { onEvidence: (e) => (evidence = e) });
    const probed = evidence?.members.find((m) => m.target.name === 'etcd-4');
    expect(probed?.health).toMatchObject({ ok: true, data: { serializable: true } });
    expect(evidence?.members.find((m) => m.target.name === 'etcd-1')?.health).toMatchObject({ ok: true });
    expect(evidence?.members.find((m) => m.target.name === 'etcd-1')?.health).not.toMatchObject({
      data: { serializable: true },
    });
    // Caught up, so the only word about it is info: it may be promoted (a Promote button).
    expect(aboutTheCluster(health.findings)).toEqual([
      expect.objectContaining({
        cause: 'learner-not-promoted',
        severity: 'info',
        members: ['etcd-4'],
        steps: [expect.objectContaining({ action: 'promote-learner', args: { member: 'etcd-4' } })],
      }),
    ]);
    expect(health.status).toBe('healthy');
    const row = health.members.find((m) => m.name === 'etcd-4');
    expect(row).toMatchObject({ isLearner: true, reachable: true, isLeader: false, error: null });
    expect(row?.tookMs).not.toBeNull();
    expect(health.members.filter((m) => m.isLearner).map((m) => m.name)).toEqual(['etcd-4']);
    expect(renderText(health)).toMatch(/etcd-4\s+http:\/\/127\.0\.0\.1:\d+\s+learner\s/);
    // A busy host can slow a disk (slow-disk is not what this is about): nothing about membership.
    const diagnose = await t.doctor.run('lab', 'diagnose');
    expect(diagnose.findings.filter((f) => MEMBERSHIP.includes(f.cause))).toEqual([]);
    expect(diagnose.probes.filter((p) => !p.ok)).toEqual([]);
  });

  it('the learner down: a warning that quorum is unaffected, with one failure to spare', async () => {
    await t.lab.kill('etcd-4');
    const report = await t.doctor.run('lab', 'diagnose');
    const down = report.findings.find((f) => f.cause === 'member-down');
    expect(down).toMatchObject({ severity: 'warning', members: ['etcd-4'] });
    expect(report.status).not.toBe('healthy');
    expect(down?.summary).toMatch(
      /^etcd-4 \(a learner\) is down \(not answering\); learners do not vote, so quorum is unaffected: 3 of 3 voting members serve, and the cluster can survive 1 more failure\./,
    );
    expect(report.findings.filter((f) => MEMBERSHIP.includes(f.cause))).toEqual([down]);
    expect(renderText(report)).toMatch(/etcd-4\s+http:\/\/127\.0\.0\.1:\d+\s+learner DOWN/);
  });

  it('the learner and one voter down: counted on the 3 voters, 0 failures to spare', async () => {
    await t.lab.kill('etcd-3');
    const report = await t.doctor.run('lab', 'diagnose');
    const down = report.findings.find((f) => f.cause === 'member-down');
    expect(down).toMatchObject({ severity: 'critical' });
    expect([...(down?.members ?? [])].sort()).toEqual(['etcd-3', 'etcd-4']);
    expect(down?.summary).toMatch(
      /2 of 3 voting members serve, and the cluster can survive 0 more failures$/,
    );
    expect(report.findings.map((f) => f.cause)).not.toContain('quorum-lost');
  });
});
