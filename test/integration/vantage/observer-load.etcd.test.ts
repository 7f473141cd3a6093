import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { configFileSchema } from '../../../src/config/schema.js';
import { runDigestNow } from '../../../src/digest/digest-now.js';
import { createDoctor } from '../../../src/doctor.js';
import { createLogger } from '../../../src/logger.js';
import { useLabDoctor } from '../../support/lab/use-lab-doctor.js';

/** Latency rules: what a stalled observer would otherwise blame on the members. */
const LATENCY_CAUSES: string[] = ['cpu-starvation', 'slow-reads', 'peer-network'];

/**
 * Busy-waits `busyMs` out of every `everyMs` on this process's own event loop, as a worker running
 * a big digest does, until stopped (and at most 60 s).
 */
function saturateEventLoop(busyMs: number, everyMs: number): () => void {
  const until = Date.now() + 60_000;
  const timer = setInterval(() => {
    const end = Date.now() + busyMs;
    while (Date.now() < end && Date.now() < until);
  }, everyMs);
  return () => clearInterval(timer);
}

/**
 * The observer effect: every latency etcd-doctor times (a GET's round trip, a read's took)
 * includes the time its own event loop was busy. A healthy cluster diagnosed by a saturated
 * process, or by a digest of many clusters on the same hosts, must not come out cpu-starvation.
 */
describe("etcd-doctor's own load while it probes", () => {
  const t = useLabDoctor();

  it('a saturated event loop during a diagnosis of a healthy cluster: no cpu-starvation, latency rules not evaluated', async () => {
    const stop = saturateEventLoop(250, 300);
    let report: Awaited<ReturnType<typeof t.doctor.run>>;
    try {
      report = await t.doctor.run('lab', 'diagnose', { explain: true });
    } finally {
      stop();
    }
    expect(report.findings.filter((f) => LATENCY_CAUSES.includes(f.cause) && f.severity !== 'info')).toEqual(
      [],
    );
    const starvation = report.explain?.find((r) => r.rule === 'cpu-starvation');
    expect(starvation).toMatchObject({ fired: false, skipped: true });
    expect(starvation?.explain[0]).toMatch(
      /^not evaluated: etcd-doctor's own event loop was delayed by up to \d+ ms \(p99 \d+ ms, limit 100 ms; 1 checks running at once\) while it probed/,
    );
    expect(report.explain?.find((r) => r.rule === 'slow-reads')).toMatchObject({ skipped: true });
    const observer = report.findings.find((f) => f.cause === 'observer-load');
    expect(observer).toMatchObject({ severity: 'info' });
    expect(report.status).not.toBe('critical');
  });

  it('unloaded, the same diagnosis judges latencies again (no observer-load)', async () => {
    const report = await t.doctor.run('lab', 'diagnose', { explain: true });
    expect(report.explain?.find((r) => r.rule === 'cpu-starvation')).toMatchObject({ skipped: false });
    expect(report.findings.map((f) => f.cause)).not.toContain('observer-load');
  });

  it('a digest of 20 clusters whose members share the same hosts: none comes out cpu-starvation', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `fleet-${i}`);
    const config = configFileSchema.parse({
      clusters: names.map((name) => ({
        name,
        etcd: { endpoints: t.lab.endpoints, metricsUrls: t.lab.metricsUrls },
      })),
      probes: { timeoutMs: 3000, metricsWindowMs: 3000 },
    });
    const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
    const printed: string[] = [];
    const reports: Array<{ cluster: string; causes: string[] }> = [];
    try {
      const recording = {
        ...doctor,
        run: async (...args: Parameters<typeof doctor.run>) => {
          const report = await doctor.run(...args);
          reports.push({ cluster: report.cluster, causes: report.findings.map((f) => f.cause) });
          return report;
        },
      };
      await runDigestNow({
        config,
        doctor: recording,
        redis: undefined,
        prefix: 'observer-test',
        chat: undefined,
        print: (text) => printed.push(text),
        channel: 'stdout',
        logger: createLogger('silent'),
        now: Date.now,
      });
    } finally {
      await doctor.close();
    }
    expect(reports).toHaveLength(20);
    expect(reports.filter((r) => r.causes.includes('cpu-starvation'))).toEqual([]);
    // The digest names each cluster's root cause as `cause`; none is cpu-starvation.
    expect(printed.join('\n')).not.toMatch(/`cpu-starvation`/);
    // Most of them ran beside ten or more others on the same hosts, and said so.
    expect(reports.filter((r) => r.causes.includes('observer-load')).length).toBeGreaterThan(10);
  });
});
