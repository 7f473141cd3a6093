import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import type { TextView } from '../../../src/report/chat-view.js';
import { type FakeKubeApi, type KubeWrite, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import {
  ALICE,
  finished,
  type Harness,
  labCluster,
  runItButton,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';

/** fio 3.x JSON, trimmed to what a run prints about sync writes (p99 fdatasync 16.9 ms, 61 IOPS). */
const FIO_JSON = JSON.stringify({
  'fio version': 'fio-3.35',
  jobs: [
    {
      jobname: 'etcd-doctor',
      write: { iops: 61.4, bw: 138 },
      sync: {
        lat_ns: { min: 1000, max: 90_000_000, mean: 8_000_000, percentile: { '99.000000': 16_908_288 } },
      },
    },
  ],
});
const FIO_IMAGE = `example.org/fio:3.35@sha256:${'ab'.repeat(32)}`;

/** Plays the Job controller and the kubelet: each Job gets a pod that succeeded and printed fio's JSON. */
function jobController(write: KubeWrite, api: FakeKubeApi): void {
  if (write.method !== 'POST' || write.resource !== 'jobs') return;
  const body = write.body as { metadata: { name: string } };
  const pod = `${body.metadata.name}-x7k2p`;
  api.fixture.objects.pods.push({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod,
      namespace: write.namespace ?? 'kube-system',
      labels: { 'job-name': body.metadata.name },
    },
    spec: { containers: [{ name: 'fio' }] },
    status: { phase: 'Succeeded' },
  });
  api.setLog(
    write.namespace ?? '',
    pod,
    'fio',
    `note: both iodepth >= 1 and synchronous I/O engine are selected\n${FIO_JSON}\n`,
  );
}

interface JobBody {
  metadata: { name: string };
  spec: {
    template: {
      spec: {
        nodeName: string;
        volumes: unknown[];
        initContainers: Array<{ name: string; image: string; env: Array<{ name: string; value: string }> }>;
        containers: Array<{ image: string; command: string[]; securityContext: Record<string, unknown> }>;
      };
    };
  };
}

/**
 * The disk benchmark on a real 3-member etcd (member names are the "nodes" here) and a fake kubeadm
 * API: the quorum guard first, never under the leader unless asked, the space check and cleanup in
 * the Job, digest-pinned images, and the Job deleted afterwards.
 */
describe('disk-benchmark', () => {
  let lab: EtcdLab;
  let kube: FakeKubeApi;
  let h: Harness;

  beforeAll(async () => {
    lab = await startEtcdLab();
    kube = await startFakeKubeApi({ fixture: 'kubeadm-1.29-healthy', onWrite: jobController });
    const kubeconfig = await writeFakeKubeconfig(kube.url, { token: kube.token });
    h = await startHarness(
      [
        labCluster(lab, {
          kubernetes: { kubeconfig, context: 'fake-admin@fake', distribution: 'kubeadm' },
          remediation: { responders: [ALICE], diskBenchmarkImage: FIO_IMAGE },
        }),
      ],
      'rem-bench',
    );
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await kube?.close();
    await lab?.destroy();
  });
  afterEach(() => {
    (h.chat.messages as unknown[]).length = 0;
  });

  const press = async (args: Record<string, string>) => {
    const anchor = await h.anchor();
    const [confirm] = await h.chat.click(anchor, await h.button('disk-benchmark', args), { user: ALICE });
    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    await h.chat.waitFor((c) => finished(c) !== undefined, 20_000);
    return { anchor, confirm: textOf(confirm), done: finished(h.chat) };
  };
  const follower = async () => {
    const leader = await lab.leaderName();
    return lab.members.map((m) => m.name).find((n) => n !== leader) ?? '';
  };

  /**
   * Presses Benchmark on a follower. Should leadership move to it between the choice and the run,
   * the re-check refuses (rightly: "runs the etcd leader"); then once more on the new follower.
   */
  const pressOnFollower = async () => {
    for (let attempt = 1; ; attempt++) {
      const node = await follower();
      const run = await press({ member: node });
      if (attempt === 2 || !/runs the etcd leader/.test(run.done?.text ?? '')) return { node, ...run };
      (h.chat.messages as unknown[]).length = 0;
    }
  };

  it('benchmarks a follower with a space check, a cleaning wrapper and pinned images, and deletes the Job', async () => {
    const { node, confirm, done } = await pressOnFollower();
    expect(confirm).toMatch(new RegExp(`Run fio on ${node} in /var/lib/etcd/etcd-doctor-fio`));
    expect(done?.text).toMatch(new RegExp(`disk of ${node}: too slow for etcd`));
    expect(done?.text).toMatch(/fdatasync p99 16\.9 ms: too slow/);
    const job = kube.writes('jobs').find((w) => w.method === 'POST')?.body as JobBody;
    const spec = job.spec.template.spec;
    expect(spec.nodeName).toBe(node);
    expect(spec.volumes).toEqual([
      { name: 'bench', hostPath: { path: '/var/lib/etcd/etcd-doctor-fio', type: 'DirectoryOrCreate' } },
    ]);
    const [space] = spec.initContainers;
    expect(space?.name).toBe('check-space');
    expect(space?.image).toMatch(/^busybox:1\.36@sha256:[0-9a-f]{64}$/);
    expect(space?.env).toContainEqual({ name: 'MIN_FREE_KB', value: String(1024 * 1024) });
    const [fio] = spec.containers;
    expect(fio?.image).toBe(FIO_IMAGE);
    expect(fio?.command.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(fio?.command[2]).toMatch(/trap cleanup EXIT/);
    expect(fio?.command).toEqual(expect.arrayContaining(['--fdatasync=1', '--size=22m', '--bs=2300']));
    const deleted = kube.writes('jobs').find((w) => w.method === 'DELETE');
    expect(deleted?.name).toBe(job.metadata.name);
  });

  it("refuses the leader's node unless asked explicitly, then runs there when asked", async () => {
    const leader = (await lab.leaderName()) ?? '';
    const jobsBefore = kube.writes('jobs').length;
    const { anchor, done } = await press({ member: leader });
    expect(done?.text).toMatch(
      new RegExp(`refused in .*not benchmarking ${leader}: ${leader} runs the etcd leader`),
    );
    expect(kube.writes('jobs')).toHaveLength(jobsBefore);
    const anyway = (done?.view as TextView | undefined)?.buttons?.[0];
    expect(anyway?.label).toBe(`Benchmark ${leader} anyway`);
    if (!anyway) throw new Error('no follow-up button');
    const before = h.chat.messages.length;
    const [confirm] = await h.chat.click(anchor, anyway, { user: ALICE });
    expect(textOf(confirm)).toMatch(/you asked for the leader: it goes ahead there/);
    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    const ran = () => h.chat.messages.slice(before).find((m) => /disk of .*: too slow for etcd/.test(m.text));
    await h.chat.waitFor(() => ran() !== undefined, 20_000);
    expect(ran()?.text).toMatch(new RegExp(`disk of ${leader}: too slow for etcd`));
  });

  it('refuses without failure margin (one of three members down), and creates no Job', async () => {
    const node = await follower();
    const victim = lab.members.map((m) => m.name).find((n) => n !== node) ?? '';
    await lab.kill(victim);
    try {
      const jobsBefore = kube.writes('jobs').length;
      const { done } = await press({ member: node });
      expect(done?.text).toMatch(/refused in .*refusing to benchmark the disk of .*not fault tolerant/);
      expect(kube.writes('jobs')).toHaveLength(jobsBefore);
    } finally {
      await lab.restart(victim);
    }
  }, 60_000);
});
