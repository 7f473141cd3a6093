import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import {
  ALICE,
  finished,
  type Harness,
  labCluster,
  runItButton,
  startHarness,
} from '../../support/chat/remediation-harness.js';

/**
 * Restarting etcd through the kubeadm helper pod, on a real 3-member etcd (members etcd-1..3) and a
 * fake kubeadm API server: the guard refuses a node that matches no member, and checks again right
 * before creating the helper pod, so a member that dies in between stops the restart.
 */
describe('restart-static-pod for etcd: the quorum guard', () => {
  let lab: EtcdLab;
  let kube: FakeKubeApi;
  let h: Harness;
  let killBeforePod = false;

  beforeAll(async () => {
    lab = await startEtcdLab();
    kube = await startFakeKubeApi({ fixture: 'kubeadm-1.29-healthy' });
    const kubeconfig = await writeFakeKubeconfig(kube.url, { token: kube.token });
    h = await startHarness(
      [
        labCluster(lab, {
          kubernetes: { kubeconfig, context: 'fake-admin@fake', distribution: 'kubeadm' },
          remediation: { responders: [ALICE] },
        }),
      ],
      'rem-restart-etcd',
      {
        onChange: async (m) => {
          if (!killBeforePod || !/checking etcd's quorum again right before/.test(m.text)) return;
          killBeforePod = false;
          await lab.kill('etcd-3');
        },
      },
    );
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await kube?.close();
    await lab?.destroy();
  });

  const press = async (args: Record<string, string>) => {
    (h.chat.messages as unknown[]).length = 0;
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('restart-static-pod', args), { user: ALICE });
    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    await h.chat.waitFor((c) => finished(c) !== undefined, 30_000);
    return finished(h.chat)?.text ?? '';
  };

  it('refuses a node that matches no etcd member, and creates no pod', async () => {
    // master-2 is a node of the fixture, but the members are named etcd-1..3: the guard cannot know
    // which member the restart takes out (the old guard subtracted nothing and let it through).
    const done = await press({ component: 'etcd', node: 'master-2' });
    expect(done).toMatch(
      /refused in .*refusing to restart etcd on master-2: it matches no member of the member list \((etcd-\d, ){2}etcd-\d\)/,
    );
    expect(kube.writes('pods')).toHaveLength(0);
  }, 60_000);

  it('checks again right before creating the helper pod: a member that died meanwhile stops it', async () => {
    killBeforePod = true;
    try {
      // Upper case as etcd may name the member: matched case-insensitively to etcd-1.
      const done = await press({ component: 'etcd', member: 'ETCD-1' });
      expect(done).toMatch(
        /refused in .*refusing to restart etcd on etcd-1: quorum is 2 and only 1 other healthy voting member\(s\) would remain \(etcd-3 unhealthy\)/,
      );
      expect(kube.writes('pods')).toHaveLength(0);
    } finally {
      await lab.restart('etcd-3');
    }
  }, 60_000);
});
