import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import { bindEtcdPodsToLab, zapLine } from '../../support/kube/lab-kube.js';

const MIN = 60_000;
const HISTORY: string[] = ['clock-skew', 'peer-network'];

/**
 * Logged-then-fixed: etcd-1's log (through the fake Kubernetes API) says `prober found high clock
 * drift` 10.5 s against etcd-2 and failed peer health checks to etcd-3, up to 18 minutes ago,
 * while the real lab members' clocks agree and their peer links are fine now. The logged evidence
 * must not vanish: info findings say when it was last seen and what the live reading is.
 */
describe('history is evidence: logged drift and peer failures, fine now', () => {
  let lab: EtcdLab;
  let fake: FakeKubeApi;
  let doctor: Doctor;
  let now: () => number;

  beforeAll(async () => {
    lab = await startEtcdLab();
    fake = await startFakeKubeApi({ fixture: 'kubeadm-1.29-healthy' });
    const kubeconfig = await writeFakeKubeconfig(fake.url, { token: fake.token, context: 'prod' });
    const config = configFileSchema.parse({
      clusters: [
        {
          name: 'prod',
          etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
          kubernetes: { kubeconfig, context: 'prod' },
        },
      ],
      probes: { timeoutMs: 2000, metricsWindowMs: 1000 },
    });
    // The fixture was recorded at a fixed time; the rules read ages against it.
    const started = Date.now();
    now = () => fake.fixture.recordedAtMs + (Date.now() - started);
    doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p), now });
    bindEtcdPodsToLab(fake, lab);
    const ids = new Map((await doctor.run('prod', 'health')).members.map((m) => [m.name, m.id ?? '']));
    const at = (minutesAgo: number) => fake.fixture.recordedAtMs - minutesAgo * MIN;
    const drift = (minutesAgo: number) =>
      zapLine(at(minutesAgo), 'warn', 'prober found high clock drift', {
        'round-tripper-name': 'ROUND_TRIPPER_RAFT_MESSAGE',
        'remote-peer-id': ids.get('etcd-2'),
        'clock-drift': '10.545065453s',
        rtt: '1.2ms',
      });
    const peerDown = (minutesAgo: number) =>
      zapLine(at(minutesAgo), 'warn', 'prober detected unhealthy status', {
        'round-tripper-name': 'ROUND_TRIPPER_SNAPSHOT',
        'remote-peer-id': ids.get('etcd-3'),
        rtt: '0s',
        error: `dial tcp ${new URL(lab.member('etcd-3').peerUrl).host}: connect: connection refused`,
      });
    fake.setLog(
      'kube-system',
      'etcd-master-1',
      'etcd',
      [drift(48), peerDown(30), drift(33), peerDown(25), drift(18), ''].join('\n'),
    );
  });
  afterAll(async () => {
    await doctor?.close();
    await fake?.close();
    await lab?.destroy();
  });

  it('clock drift in the log, clocks in sync now: an info finding with when and what now', async () => {
    const report = await doctor.run('prod', 'diagnose');
    const drift = report.findings.find((f) => f.cause === 'clock-skew');
    expect(drift).toMatchObject({ severity: 'info' });
    expect(drift?.summary).toMatch(
      /^etcd logged clock drift of up to 10\.5 s \(etcd-1 against etcd-2\), last 18 min ago \(2024-05-14T09:12:00\.000Z\); the member clocks agree now, within \d+(\.\d)? ms$/,
    );
    expect(drift?.evidence.join('\n')).toMatch(
      /etcd-1 logged 3 × clock difference against etcd-2, up to 10\.5 s, last at 2024-05-14T09:12:00\.000Z/,
    );
    // Old drift is history, not a warning (a busy host's slow disk may show up beside it).
    expect(report.findings.filter((f) => HISTORY.includes(f.cause) && f.severity !== 'info')).toEqual([]);
  });

  it('peer failures in the log, peers fine now: an info finding, not a peer-network warning', async () => {
    const report = await doctor.run('prod', 'diagnose');
    const peers = report.findings.find((f) => f.cause === 'peer-network');
    expect(peers).toMatchObject({ severity: 'info', members: ['etcd-3'] });
    expect(peers?.summary).toMatch(
      /^etcd logged 2 failed peer health checks to etcd-3, last 25 min ago \(2024-05-14T09:05:00\.000Z\); the peer links are fine now/,
    );
  });
});
