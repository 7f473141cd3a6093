import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { compactionStalledRule } from '../../../src/diagnosis/rules/compaction-stalled.js';
import { analyzePaths } from '../../../src/offline/analyze.js';
import type { MetricsData } from '../../../src/probes/evidence.js';
import { clusterEvidence, metricsData, ok } from '../../support/evidence/evidence.js';

const NOW = Date.parse('2026-11-29T03:00:00Z');
const MIN = 60_000;

/** The same /metrics gauges on every member. */
function withGauges(gauges: Partial<MetricsData['gauges']>, alarms = false) {
  const metrics = ok(metricsData({ gauges: { ...metricsData().gauges, ...gauges } }));
  const e = clusterEvidence({ 'etcd-1': { metrics }, 'etcd-2': { metrics }, 'etcd-3': { metrics } });
  return alarms ? { ...e, alarms: ok([{ memberId: 'a1', alarm: 'NOSPACE' as const }]) } : e;
}

const evaluate = (e: ReturnType<typeof withGauges>, compactionIntervalMs?: number) =>
  compactionStalledRule.evaluate(e, {
    now: NOW,
    ...(compactionIntervalMs ? { compactionIntervalMs } : {}),
  });

describe('compaction-stalled (live, /metrics)', () => {
  it('a healthy etcd 3.4 that compacts: nothing, and says it cannot tell when 3.4 last compacted', () => {
    const r = evaluate(withGauges({ currentRevision: 120_000, compactRevision: 119_400 }));
    expect(r.finding).toBeUndefined();
    expect(r.explain[0]).toMatch(
      /600 behind.*not known \(2 compactions since it started; etcd 3.4 does not export/,
    );
  });

  it('a fresh cluster never compacted with few revisions is not stalled', () => {
    const r = evaluate(
      withGauges({
        currentRevision: 800,
        compactRevision: -1,
        compactionsSinceStart: 0,
        processStartTimeSeconds: (NOW - 3 * 3600_000) / 1000,
      }),
    );
    expect(r.finding).toBeUndefined();
  });

  it('never compacted, 52,341 revisions, none in the 3 h since start: warning on every member', () => {
    const r = evaluate(
      withGauges({
        currentRevision: 52_342,
        compactRevision: -1,
        compactionsSinceStart: 0,
        processStartTimeSeconds: (NOW - 3 * 3600_000) / 1000,
      }),
    );
    expect(r.finding).toMatchObject({
      cause: 'compaction-stalled',
      severity: 'warning',
      members: ['etcd-1', 'etcd-2', 'etcd-3'],
    });
    expect(r.finding?.summary).toBe(
      'Compaction has stalled: the keyspace was never compacted: 52,341 revisions of history, none in the 3.0 h since etcd-1 started; kube-apiserver compacts every 5 min by default, and the history grows until the database reaches its quota',
    );
    expect(r.finding?.steps[0]?.text).toMatch(/--etcd-compaction-interval.*kube-apiserver\.yaml/);
  });

  it('etcd 3.5: last compaction 40 min ago and 20,000 behind fires; 10 min ago does not', () => {
    const stale = evaluate(
      withGauges({
        currentRevision: 140_000,
        compactRevision: 120_000,
        lastCompactionSeconds: (NOW - 40 * MIN) / 1000,
      }),
    );
    expect(stale.finding?.summary).toMatch(
      /the revision ran 20,000 past the last compaction \(at 120,000\), the last 40 min ago/,
    );
    expect(stale.finding?.evidence[0]).toBe(
      'etcd-1: revision 140,000, compacted at 120,000: 20,000 revisions of history; last compaction 40 min ago (etcd_debugging_mvcc_db_compaction_last)',
    );
    const recent = evaluate(
      withGauges({
        currentRevision: 140_000,
        compactRevision: 120_000,
        lastCompactionSeconds: (NOW - 10 * MIN) / 1000,
      }),
    );
    expect(recent.finding).toBeUndefined();
  });

  it('far behind but the time of the last compaction unknown (3.4, compacted since start): no verdict', () => {
    const r = evaluate(withGauges({ currentRevision: 500_000, compactRevision: 100 }));
    expect(r.finding).toBeUndefined();
  });

  it('a configured interval is the yardstick, and an active NOSPACE is named as what blocks the apiserver', () => {
    const gauges = {
      currentRevision: 30_000,
      compactRevision: 12_000,
      lastCompactionSeconds: (NOW - 40_000) / 1000,
    };
    expect(evaluate(withGauges(gauges)).finding).toBeUndefined();
    const r = evaluate(withGauges(gauges, true), 10_000);
    expect(r.finding?.summary).toMatch(/compaction is expected every 10 s/);
    expect(r.finding?.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/maintenance\.compactionIntervalSeconds/),
        expect.stringMatching(/NOSPACE alarm is active: kube-apiserver cannot compact.*kubernetes#94029/),
      ]),
    );
  });
});

/** etcd-io/etcd#7944's shape: a compaction every 5 min, then none while the log goes on. */
function capnslogEtcd(lastCompactionAt: string, endAt: string): string {
  const lines: string[] = [];
  const start = Date.parse('2017-05-14T16:02:28Z');
  const stamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');
  let rev = 1_815_026;
  for (let t = start; t <= Date.parse(lastCompactionAt); t += 5 * MIN) {
    lines.push(`${stamp(t)} I | mvcc: store.index: compact ${rev}`);
    lines.push(`${stamp(t)} I | mvcc: finished scheduled compaction at ${rev} (took 1.573214ms)`);
    rev += 410;
  }
  for (let t = Date.parse(lastCompactionAt) + MIN; t <= Date.parse(endAt); t += 10 * MIN)
    lines.push(`${stamp(t)} I | etcdserver: start to snapshot (applied: ${rev}, lastsnap: 1)`);
  return `${lines.join('\n')}\n`;
}

function zapEtcd(times: string[], endAt: string): string {
  const lines = times.map(
    (ts, i) =>
      `{"level":"info","ts":"${ts}","caller":"mvcc/kvstore_compaction.go:72","msg":"finished scheduled compaction","compact-revision":${4000 + i * 400},"took":"20.69µs","hash":403121789,"current-db-size-bytes":20480,"current-db-size":"20 kB","current-db-size-in-use-bytes":16384,"current-db-size-in-use":"16 kB"}`,
  );
  lines.push(
    `{"level":"info","ts":"${endAt}","caller":"etcdserver/server.go:1379","msg":"triggering snapshot","local-member-id":"8e9e05c52164694d"}`,
  );
  return `${lines.join('\n')}\n`;
}

describe('compaction-stalled from logs (analyze)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'compaction-logs-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('capnslog: compactions every 5 min until 16:22, then none for 3 days: the finding names the member', async () => {
    const path = join(dir, 'etcd-1.log');
    await writeFile(path, capnslogEtcd('2017-05-14T16:22:28Z', '2017-05-17T11:36:00Z'));
    const report = await analyzePaths([path]);
    const finding = report.findings.find((f) => f.cause === 'compaction-stalled');
    expect(finding).toMatchObject({ severity: 'warning', members: ['etcd-1'] });
    expect(finding?.evidence[0]).toBe(
      'etcd-1: the last `finished scheduled compaction` was logged at 2017-05-14T16:22:28.000Z (revision 1,816,666), and the log runs 2.8 days more, to 2017-05-17T11:33:28.000Z, with none (5 before it)',
    );
  });

  it('zap (3.5): the last compaction 4 min before the log ends is no finding', async () => {
    const path = join(dir, 'etcd-2.log');
    const times = [
      '2026-11-29T02:41:00Z',
      '2026-11-29T02:46:00Z',
      '2026-11-29T02:51:00Z',
      '2026-11-29T02:56:00Z',
    ];
    await writeFile(path, zapEtcd(times, '2026-11-29T03:00:00Z'));
    const report = await analyzePaths([path], { explain: true });
    expect(report.findings.find((f) => f.cause === 'compaction-stalled')).toBeUndefined();
    expect(report.explain?.find((t) => t.rule === 'compaction-stalled-logs')?.explain[0]).toMatch(
      /etcd-2: 4 compaction lines, the last at 2026-11-29T02:56:00.000Z; its log runs 4 min past it/,
    );
  });

  it('zap: compactions that stop 40 min before the end fire', async () => {
    const path = join(dir, 'etcd-3.log');
    await writeFile(
      path,
      zapEtcd(
        ['2026-11-29T02:10:00Z', '2026-11-29T02:15:00Z', '2026-11-29T02:20:00Z'],
        '2026-11-29T03:00:00Z',
      ),
    );
    const report = await analyzePaths([path]);
    expect(report.findings.find((f) => f.cause === 'compaction-stalled')?.summary).toMatch(
      /the last `finished scheduled compaction` was logged at 2026-11-29T02:20:00.000Z \(revision 4,800\), and the log runs 40 min more/,
    );
  });
});

describe('compaction-stalled from logs: a stall that ended inside the log', () => {
  it('zap: compactions every 5 min, none for 2 h, then every 5 min again: names the silence', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'compaction-logs-'));
    try {
      const path = join(dir, 'etcd-4.log');
      const times = [
        '2026-11-29T00:00:00Z',
        '2026-11-29T00:05:00Z',
        '2026-11-29T02:05:00Z',
        '2026-11-29T02:10:00Z',
      ];
      await writeFile(path, zapEtcd(times, '2026-11-29T02:12:00Z'));
      const report = await analyzePaths([path]);
      expect(report.findings.find((f) => f.cause === 'compaction-stalled')?.evidence[0]).toBe(
        'etcd-4: no `finished scheduled compaction` line for 2.0 h, from 2026-11-29T00:05:00.000Z to 2026-11-29T02:05:00.000Z, before compaction resumed (4 lines in all): the history of that time piled up',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('zap: compactions every 5 min without a break are no finding', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'compaction-logs-'));
    try {
      const path = join(dir, 'etcd-5.log');
      const times = ['2026-11-29T00:00:00Z', '2026-11-29T00:05:00Z', '2026-11-29T00:10:00Z'];
      await writeFile(path, zapEtcd(times, '2026-11-29T00:12:00Z'));
      const report = await analyzePaths([path]);
      expect(report.findings.find((f) => f.cause === 'compaction-stalled')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('compaction-stalled from logs: what is not enough', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'compaction-logs-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('one compaction line followed by silence (an excerpt?) gives no verdict', async () => {
    const path = join(dir, 'etcd-1.log');
    await writeFile(path, zapEtcd(['2026-11-29T02:00:00Z'], '2026-11-29T03:00:00Z'));
    const report = await analyzePaths([path]);
    expect(report.findings.find((f) => f.cause === 'compaction-stalled')).toBeUndefined();
  });
});
