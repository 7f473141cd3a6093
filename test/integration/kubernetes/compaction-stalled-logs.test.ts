import { describe, expect, it } from '@jest/globals';
import { compactionStalledRule } from '../../../src/diagnosis/rules/compaction-stalled.js';
import { metricsData, ok } from '../../support/evidence/evidence.js';
import {
  etcdPart,
  OPENSHIFT_MEMBERS,
  useScenario,
  withKubernetes,
} from '../../support/kube/kube-evidence.js';

/**
 * etcd 3.4 exports no time of its last compaction: with Kubernetes access, the etcd logs read
 * through the (fake) apiserver say it. The OpenShift fixture's members last logged `finished
 * scheduled compaction` at 08:30:00.211 and the collection is at 09:30.
 */
describe('compaction-stalled live, with the time of the last compaction from the etcd pods logs', () => {
  const run = useScenario('openshift-4.14-healthy');

  const evidenceWith = (currentRevision: number) => {
    const metrics = ok(
      metricsData({
        gauges: {
          ...metricsData().gauges,
          compactRevision: 40_581_122,
          currentRevision,
          compactionsSinceStart: 12,
        },
      }),
    );
    const overrides = Object.fromEntries(OPENSHIFT_MEMBERS.map((m) => [m.name, { metrics }]));
    return withKubernetes(etcdPart(OPENSHIFT_MEMBERS, overrides), run.kubernetes);
  };

  it('an hour since the last compaction line and 58,878 revisions on: stalled, the log named as the source', () => {
    const result = compactionStalledRule.evaluate(evidenceWith(40_640_000), { now: run.now });
    expect(result.finding?.members).toEqual(['master-0', 'master-1', 'master-2']);
    expect(result.finding?.evidence[0]).toBe(
      "master-0: revision 40,640,000, compacted at 40,581,122: 58,878 revisions of history; last compaction 60 min ago (its etcd log's last `finished scheduled compaction` at 2024-05-14T08:30:00.211Z)",
    );
  });

  it('the same hour with 3,878 revisions on is not far enough to matter', () => {
    expect(
      compactionStalledRule.evaluate(evidenceWith(40_585_000), { now: run.now }).finding,
    ).toBeUndefined();
  });
});
