import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { addDefragRunner } from '../../../src/history/defrag-runner.js';
import { silentLogger } from '../../../src/logger.js';
import { createAuditLog } from '../../../src/state/audit-log.js';
import { REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor } from '../../../src/doctor.js';
import { startFakeKubeApi } from '../../support/kube/fake-kube-api.js';
import { writeFakeKubeconfig } from '../../support/kube/fake-kubeconfig.js';
import type { DiagnosisReport as Report } from '../../../src/contracts/report-json.js';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';
import {
  holdConnections,
  lowerFdLimit,
  metricValue,
  oversizedPuts,
  rangeStorm,
  seedKeys,
  stuckWatchers,
  waitForMetric,
  waitForQuietClients,
} from '../../support/lab/overload-load.js';

/** Overload and exhaustion, each for real on the 3-member lab, and gone once the load stops (issue 39). */
describe('overload and exhaustion, live', () => {
  const t = useLabDoctor();
  const named = (report: Report, cause: string) => report.findings.find((f) => f.cause === cause);
  const line = (report: Report) =>
    report.findings.map((f) => `${f.cause}[${f.severity}] ${f.members.join(',')}: ${f.summary}`).join('\n');

  let seeded: Promise<void> | undefined;
  /** 20,000 pods of 1.5 KB (30 MB) under /registry/pods/, once per lab. */
  const seedPods = (endpoint: string) => {
    seeded ??= seedKeys(endpoint, { prefix: '/registry/pods/', count: 20_000, valueBytes: 1500 });
    return seeded;
  };

  it('a range storm over 30 MB of pods from 3 clients: expensive-requests first, with the member; gone once it stops', async () => {
    const target = t.lab.members[0];
    if (!target) throw new Error('no member');
    await seedPods(target.clientUrl);
    const sent = (await metricValue(t.lab, target.name, 'etcd_network_client_grpc_sent_bytes_total')) ?? 0;
    const storm = await rangeStorm(target.clientUrl, {
      prefix: '/registry/pods/',
      clients: 3,
      maxSeconds: 90,
    });
    let report: Report;
    try {
      // The storm has started once two whole prefixes (60 MB) have left the member.
      await waitForMetric(
        t.lab,
        target.name,
        'etcd_network_client_grpc_sent_bytes_total',
        (v) => v > sent + 60e6,
      );
      report = await t.doctor.run('lab', 'diagnose');
    } finally {
      await storm.stop();
    }
    console.log(`range storm:\n${line(report)}\n${report.findings[0]?.evidence.join('\n')}`);
    expect(report.findings[0]).toMatchObject({ cause: 'expensive-requests' });
    expect(report.findings[0]?.members[0]).toBe(target.name);
    expect(report.findings[0]?.summary).toMatch(new RegExp(`[\\d.]+ MB/s from ${target.name}`));
    for (const symptom of ['cpu-starvation', 'slow-reads']) {
      const f = named(report, symptom);
      if (f?.members.includes(target.name)) expect(f.causedBy).toBe('expensive-requests');
    }
    // Present tense: once the storm's last response has left the member, the next diagnosis clears.
    await waitForQuietClients(t.lab, target.name);
    const after = await t.doctor.run('lab', 'diagnose');
    expect(named(after, 'expensive-requests')).toBeUndefined();
  }, 120_000);

  it("with Kubernetes: the apiserver's own metrics name the resource listed, pods across all namespaces, at its rate in the window and with the flow schema", async () => {
    const target = t.lab.members[0];
    if (!target) throw new Error('no member');
    await seedPods(target.clientUrl);
    const fake = await startFakeKubeApi({ fixture: 'list-storm' });
    const kubeconfig = await writeFakeKubeconfig(fake.url, { token: fake.token, context: 'prod' });
    const config = configFileSchema.parse({
      clusters: [
        {
          name: 'prod',
          etcd: { endpoints: t.lab.endpoints, metricsUrls: t.lab.metricsUrls },
          kubernetes: {
            kubeconfig,
            context: 'prod',
            // The API server's audit log of the same minute: a CI runner's kubectl lists every pod.
            auditLog: {
              path: fileURLToPath(new URL('../../fixtures/kube/list-storm/audit.log', import.meta.url)),
            },
          },
        },
      ],
    });
    // The fixture was recorded at a fixed time: the apiserver's uptime and the audit log's minute are read against it.
    const started = Date.now();
    const now = () => fake.fixture.recordedAtMs + (Date.now() - started);
    const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p), now });
    const sent = (await metricValue(t.lab, target.name, 'etcd_network_client_grpc_sent_bytes_total')) ?? 0;
    const storm = await rangeStorm(target.clientUrl, {
      prefix: '/registry/pods/',
      clients: 3,
      maxSeconds: 90,
    });
    let report: Report;
    try {
      await waitForMetric(
        t.lab,
        target.name,
        'etcd_network_client_grpc_sent_bytes_total',
        (v) => v > sent + 60e6,
      );
      report = await doctor.run('prod', 'diagnose');
    } finally {
      await storm.stop();
      await doctor.close();
      await fake.close();
    }
    console.log(
      `range storm with Kubernetes:\n${line(report)}\n${named(report, 'expensive-requests')?.evidence.join('\n')}`,
    );
    const f = named(report, 'expensive-requests');
    expect(report.findings[0]?.cause).toBe('expensive-requests');
    // The fake apiserver lists 3 a second while it runs (list-storm/metrics-growth.json), and the
    // doctor reads its /metrics at both ends of its own 3 s window: whole LISTs, 9 or 10 of them.
    const headline = new RegExp(
      `^LISTs of pods across all namespaces \\(([\\d.]+) a second, 85 MB each, in the last 3 s; flow schema \`service-accounts\`, priority level \`workload-low\`; by system:serviceaccount:ci:runner with kubectl/v1\\.30\\.2\\) are reading [\\d.]+ MB/s from ${target.name}`,
    );
    expect(f?.summary).toMatch(headline);
    const perSecond = Number(headline.exec(f?.summary ?? '')?.[1]);
    expect(perSecond).toBeGreaterThanOrEqual(2.5);
    expect(perSecond).toBeLessThanOrEqual(3.5);
    expect(f?.evidence.join('\n')).toMatch(
      /the apiserver in the last 3 s: LISTs of pods across all namespaces, [\d.]+ a second, 85 MB each \([\d.]+ MB\/s\), (9|10) served from etcd rather than the watch cache/,
    );
    expect(f?.evidence.join('\n')).toMatch(
      /API Priority and Fairness in the last 3 s: flow schema `service-accounts` \(priority level `workload-low`\) dispatches the most/,
    );
    expect(f?.evidence.join('\n')).toMatch(
      /the audit log, LISTs received in the last 60 s: \d+ of pods across all namespaces by system:serviceaccount:ci:runner \(kubectl\/v1\.30\.2\)/,
    );
    // The 12 time-outs of the fixture are older than the window: no rejection now.
    expect(f?.summary).not.toMatch(/429/);
  }, 120_000);

  it('2 MB puts refused: request-too-large on the member that refused them, with the default limit; gone after', async () => {
    const target = t.lab.members[2];
    if (!target) throw new Error('no member');
    // The refusals must land inside the diagnosis's /metrics window: they run beside it.
    const running = t.doctor.run('lab', 'diagnose');
    const errors: string[] = [];
    let settled = false;
    const puts = (async () => {
      for (let i = 0; i < 20 && !settled; i++)
        errors.push(...(await oversizedPuts(target.clientUrl, { count: 1, bytes: 2_000_000 })));
    })();
    const report = await running.finally(() => {
      settled = true;
    });
    await puts;
    console.log(`2 MB puts (${errors.length}, e.g. ${errors[0]}):\n${line(report)}`);
    expect(errors[0]).toMatch(/request is too large/);
    const f = named(report, 'request-too-large');
    expect(f).toMatchObject({ severity: 'warning', members: [target.name] });
    expect(f?.evidence.join('\n')).toMatch(/1.5 MiB, etcd's default/);
    expect(report.status).not.toBe('critical');
    const after = await t.doctor.run('lab', 'diagnose');
    expect(named(after, 'request-too-large')).toBeUndefined();
  }, 120_000);

  it('a lowered open-file limit and held idle connections: fd-exhaustion with the member; gone once they close', async () => {
    const target = t.lab.members[1];
    if (!target?.pid) throw new Error('no member');
    const limit = 120;
    await lowerFdLimit(target.pid, limit);
    const open = (await metricValue(t.lab, target.name, 'process_open_fds')) ?? 0;
    // To 100 of 120 (83 %): our own probe adds a connection or two, short of the limit.
    const held = await holdConnections(target.clientUrl, Math.max(0, 100 - open));
    let report: Report;
    try {
      await waitForMetric(t.lab, target.name, 'process_open_fds', (v) => v >= 0.8 * limit);
      report = await t.doctor.run('lab', 'diagnose');
    } finally {
      held.release();
    }
    console.log(`fd limit ${limit}, ${open} open before:\n${line(report)}`);
    const f = named(report, 'fd-exhaustion');
    expect(f).toMatchObject({ severity: 'warning', members: [target.name] });
    expect(f?.summary).toMatch(
      new RegExp(`${target.name} uses \\d+ % of its file descriptors \\(\\d+ of ${limit} open\\)`),
    );
    expect(report.findings[0]?.cause).toBe('fd-exhaustion');
    await waitForMetric(t.lab, target.name, 'process_open_fds', (v) => v < 0.7 * limit);
    const after = await t.doctor.run('lab', 'diagnose');
    expect(named(after, 'fd-exhaustion')).toBeUndefined();
  }, 120_000);

  it('watchers that never read: slow-watchers with the member; gone once they are closed', async () => {
    const target = t.lab.members[1];
    if (!target) throw new Error('no member');
    const watchers = await stuckWatchers(target.clientUrl, { prefix: '/slow/', count: 3 });
    let report: Report;
    try {
      await waitForMetric(t.lab, target.name, 'etcd_debugging_mvcc_watcher_total', (v) => v >= 3);
      // 6 MB of events: more than HTTP/2's window and etcd's 128-response channel hold.
      const written = await t.lab.writeLoad({
        ratePerSecond: 100,
        durationMs: 6000,
        valueBytes: 10_000,
        keyPrefix: '/slow/',
      });
      expect(written.errors).toBe(0);
      await waitForMetric(t.lab, target.name, 'etcd_debugging_mvcc_slow_watcher_total', (v) => v > 0);
      report = await t.doctor.run('lab', 'diagnose');
    } finally {
      await watchers.stop();
    }
    console.log(`stuck watchers:\n${line(report)}\n${named(report, 'slow-watchers')?.evidence.join('\n')}`);
    expect(named(report, 'slow-watchers')).toMatchObject({ members: [target.name] });
    await waitForMetric(t.lab, target.name, 'etcd_debugging_mvcc_slow_watcher_total', (v) => v === 0);
    const after = await t.doctor.run('lab', 'diagnose');
    expect(named(after, 'slow-watchers')).toBeUndefined();
  }, 120_000);

  it('a follower defragmenting 300 MB under writes: defrag-in-progress explains what it stalls; gone once done', async () => {
    const target = t.lab.members[1];
    if (!target) throw new Error('no member');
    // 300 MB of 100 KB values, a fifth of them deleted: a database worth defragmenting, for seconds.
    await seedKeys(target.clientUrl, { prefix: '/big/', count: 3000, valueBytes: 100_000 });
    const removed = await t.lab.etcdctl(['del', '--prefix', '/big/ns-1']);
    expect(removed.code).toBe(0);
    const load = t.lab.writeLoad({ ratePerSecond: 50, durationMs: 15_000, valueBytes: 256 });
    const defrag = t.lab.etcdctl([`--endpoints=${target.clientUrl}`, '--command-timeout=60s', 'defrag'], {
      timeoutMs: 70_000,
    });
    let report: Report;
    try {
      await waitForMetric(t.lab, target.name, 'etcd_disk_defrag_inflight', (v) => v === 1);
      report = await t.doctor.run('lab', 'diagnose');
    } finally {
      const done = await defrag;
      expect(done.code).toBe(0);
      await load;
    }
    console.log(
      `defragmenting:\n${line(report)}\n${named(report, 'defrag-in-progress')?.evidence.join('\n')}`,
    );
    expect(report.findings[0]).toMatchObject({ cause: 'defrag-in-progress', members: [target.name] });
    // Who ran it, as the worker's diagnosis says: etcdctl here, so none of etcd-doctor's runs in its
    // audit trail (real Redis, an empty trail).
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const audit = createAuditLog(redis, testPrefix('overload-audit'));
      const attributed = await addDefragRunner(report, audit, Date.now(), silentLogger);
      expect(attributed.findings[0]?.evidence[0]).toMatch(/^not started by etcd-doctor: .*etcdctl defrag/);
    } finally {
      redis.disconnect();
    }
    for (const f of report.findings.filter(
      (x) => x !== report.findings[0] && x.members.includes(target.name),
    ))
      if (['member-down', 'slow-reads', 'slow-disk', 'cpu-starvation', 'leader-churn'].includes(f.cause))
        expect(f.causedBy).toBe('defrag-in-progress');
    const after = await t.doctor.run('lab', 'diagnose');
    expect(named(after, 'defrag-in-progress')).toBeUndefined();
  }, 180_000);
});
