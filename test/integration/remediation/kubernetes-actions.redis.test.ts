import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeKubeApi, type KubeWrite, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import {
  ALICE,
  finished,
  type Harness,
  runItButton,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';

/** Plays the kubelet: helper pods succeed, the mirror pod comes back new. */
function kubelet(write: KubeWrite, api: FakeKubeApi): void {
  if (write.method !== 'POST') return;
  const body = write.body as { metadata: { name: string }; spec?: { nodeName?: string } };
  if (write.resource === 'pods') {
    const created = api.fixture.objects.pods.find((p) => p.metadata.name === body.metadata.name);
    if (created) created.status = { phase: 'Succeeded' };
    const mirror = api.fixture.objects.pods.find(
      (p) => p.metadata.name === `kube-scheduler-${body.spec?.nodeName}`,
    );
    if (mirror) mirror.metadata.uid = `recreated-${Date.now()}`;
  }
}

describe('restart-static-pod against a fake kubeadm apiserver', () => {
  let kube: FakeKubeApi;
  let h: Harness;

  beforeAll(async () => {
    kube = await startFakeKubeApi({ fixture: 'kubeadm-1.29-healthy', onWrite: kubelet });
    const kubeconfig = await writeFakeKubeconfig(kube.url, { token: kube.token });
    h = await startHarness(
      [
        {
          name: 'local',
          etcd: { endpoints: ['http://127.0.0.1:9'] },
          kubernetes: { kubeconfig, context: 'fake-admin@fake', distribution: 'kubeadm' },
          remediation: {
            responders: [ALICE],
          },
        },
      ],
      'rem-kube',
    );
  });
  afterAll(async () => {
    await h?.close();
    await kube?.close();
  });
  afterEach(() => {
    (h.chat.messages as unknown[]).length = 0;
  });

  const press = async (action: 'restart-static-pod', args: Record<string, string>, rootCause?: string) => {
    const anchor = await h.anchor();
    const button = await h.button(action, args, rootCause ? { context: { rootCause } } : {});
    const [confirm] = await h.chat.click(anchor, button, { user: ALICE });
    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    await h.chat.waitFor((c) => finished(c) !== undefined, 20_000);
    return { confirm: textOf(confirm), done: finished(h.chat)?.text ?? '' };
  };

  it('restarts kube-scheduler with a pod pinned to the node, only the manifests hostPath, no privilege, deleted after', async () => {
    const { confirm, done } = await press(
      'restart-static-pod',
      { component: 'kube-scheduler', node: 'master-2' },
      'slow-disk',
    );
    // KB R10 on the confirmation: the root cause is etcd.
    expect(confirm).toMatch(/root cause is etcd \(`slow-disk`\): restarting kube-scheduler does not help/);
    expect(done).toMatch(
      /finished in .*restarted kube-scheduler on master-2: kube-scheduler-master-2 is Ready again/,
    );

    const [create] = kube.writes('pods').filter((w) => w.method === 'POST');
    const pod = create?.body as {
      metadata: { name: string; namespace: string };
      spec: Record<string, unknown> & {
        nodeName: string;
        volumes: Array<{ name: string; hostPath?: { path: string } }>;
        containers: Array<{
          securityContext: Record<string, unknown>;
          env: Array<{ name: string; value: string }>;
        }>;
      };
    };
    expect(create?.namespace).toBe('kube-system');
    expect(pod.spec.nodeName).toBe('master-2');
    expect(pod.spec.volumes).toEqual([
      { name: 'manifests', hostPath: { path: '/etc/kubernetes/manifests', type: 'Directory' } },
    ]);
    expect(pod.spec.hostNetwork).toBeUndefined();
    expect(pod.spec.hostPID).toBeUndefined();
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    expect(pod.spec.containers[0]?.securityContext).toMatchObject({
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.spec.containers[0]?.env).toContainEqual({ name: 'MANIFEST', value: 'kube-scheduler.yaml' });
    // Cleanup: the helper pod is deleted.
    expect(
      kube
        .writes('pods')
        .filter((w) => w.method === 'DELETE')
        .map((w) => w.name),
    ).toEqual([pod.metadata.name]);
  });
});

describe('restart-static-pod and replace-member on OpenShift', () => {
  let kube: FakeKubeApi;
  let h: Harness;

  beforeAll(async () => {
    kube = await startFakeKubeApi({ fixture: 'openshift-4.14-healthy' });
    const kubeconfig = await writeFakeKubeconfig(kube.url, { token: kube.token });
    h = await startHarness(
      [
        {
          name: 'local',
          etcd: { endpoints: ['http://127.0.0.1:9'] },
          kubernetes: { kubeconfig, context: 'fake-admin@fake' },
          remediation: { responders: [ALICE] },
        },
      ],
      'rem-ocp',
    );
  });
  afterAll(async () => {
    await h?.close();
    await kube?.close();
  });

  it('merge-patches forceRedeploymentReason on the operator resource and creates no pod', async () => {
    const anchor = await h.anchor();
    const button = await h.button('restart-static-pod', {
      component: 'kube-controller-manager',
      node: 'master-0',
    });
    const [confirm] = await h.chat.click(anchor, button, { user: ALICE });
    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    await h.chat.waitFor((c) => finished(c) !== undefined, 20_000);
    expect(finished(h.chat)?.text).toMatch(
      /asked the OpenShift operator to redeploy kube-controller-manager/,
    );
    const [patch] = kube.writes();
    expect(patch).toMatchObject({
      method: 'PATCH',
      resource: 'kubecontrollermanagers',
      name: 'cluster',
      contentType: 'application/merge-patch+json',
    });
    expect(
      (patch?.body as { spec?: { forceRedeploymentReason?: string } } | undefined)?.spec
        ?.forceRedeploymentReason,
    ).toMatch(/^etcd-doctor /);
    expect(kube.writes()).toHaveLength(1);
  });

  it("replace-member: OpenShift detected, it links the etcd operator's runbook and changes nothing", async () => {
    (h.chat.messages as unknown[]).length = 0;
    const writes = kube.writes().length;
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('replace-member', { member: 'master-1' }), {
      user: ALICE,
    });
    const [run] = (confirm as { buttons?: Parameters<typeof h.chat.click>[1][] }).buttons ?? [];
    if (!run) throw new Error(`no Run it: ${textOf(confirm)}`);
    await h.chat.click(anchor, run, { user: ALICE });
    await h.chat.waitFor((c) => finished(c) !== undefined, 20_000);
    const done = finished(h.chat);
    expect(done?.text).toMatch(
      /refused in .*cluster local runs OpenShift, whose etcd operator replaces members itself/,
    );
    expect(done?.text).toContain('replacing-unhealthy-etcd-member.html');
    expect((done?.view as { link?: { url: string } } | undefined)?.link?.url).toMatch(
      /replacing-unhealthy-etcd-member\.html$/,
    );
    expect(kube.writes()).toHaveLength(writes);
  });
});
