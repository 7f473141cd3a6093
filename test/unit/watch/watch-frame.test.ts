import { describe, expect, it } from '@jest/globals';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { WAL_FSYNC_P99_LIMIT_S } from '../../../src/diagnosis/rules/slow-disk.js';
import type { Evidence, LatencySummary } from '../../../src/probes/evidence.js';
import { buildReport } from '../../../src/report/diagnosis-report.js';
import { decideIncident, nextStreak, type Streak } from '../../../src/watch/incident-decision.js';
import { watchFrame } from '../../../src/cli/watch-cli.js';
import { clusterEvidence, latency, metricsData, ok } from '../../support/evidence/evidence.js';

const now = Date.parse('2026-11-29T03:00:05Z');
const LIMIT_MS = WAL_FSYNC_P99_LIMIT_S * 1000;

function reportOf(evidence: Evidence): DiagnosisReport {
  return buildReport(evidence, diagnose(evidence, rules, { now }), { kind: 'diagnose', durationMs: 3000 });
}

/** A summary that fell back to the since-start histogram because the window held only `windowCount`. */
function sinceStart(summary: LatencySummary, windowCount: number): LatencySummary {
  return { ...summary, source: 'since-start', windowSeconds: undefined, windowCount };
}

/** The wal fsync figures a frame line quotes (`fsync p99 3.8 ms`, `wal fsync p99 241 ms`). */
function fsyncFigures(line: string): number[] {
  return [...line.matchAll(/fsync p99 ([\d.]+) ms/g)].map((m) => Number(m[1]));
}

/** No frame line says critical (or warning) next to a wal fsync figure under the limit. */
function expectNoAlarmUnderTheLimit(frame: string): void {
  for (const line of frame.split('\n').filter((l) => /\b(critical|warning):/.test(l)))
    for (const ms of fsyncFigures(line))
      expect({ line, ms, over: ms > LIMIT_MS }).toMatchObject({ over: true });
}

describe('watch frames say the severity of now', () => {
  it('a disk fixed a while ago (slow only since start, a quiet window): info, never critical', () => {
    const past = ok(
      metricsData({
        walFsync: sinceStart(latency(241, 18, 1381), 14),
        backendCommit: { ...latency(4, 2, 14), windowSeconds: 9.1 },
      }),
    );
    const report = reportOf(clusterEvidence({ 'etcd-2': { metrics: past } }));
    const frame = watchFrame(report, 10, 7);
    expect(frame).toMatch(/\n {2}info: slow-disk on etcd-2: etcd-2 had a slow disk earlier/);
    expect(frame).not.toMatch(/critical|warning/);
    expectNoAlarmUnderTheLimit(frame);
  });

  it('a disk slow now: critical, and the line quotes the figure over the limit', () => {
    const slow = ok(metricsData({ walFsync: { ...latency(48, 30, 400), windowSeconds: 3 } }));
    const report = reportOf(clusterEvidence({ 'etcd-2': { metrics: slow } }));
    const frame = watchFrame(report, 10, 8);
    const rootLine = frame.split('\n').find((l) => /^ {2}(critical|warning): slow-disk/.test(l));
    expect(rootLine).toBeDefined();
    expect(fsyncFigures(rootLine ?? '')).not.toEqual([]);
    expectNoAlarmUnderTheLimit(frame);
  });

  it('an incident open on a slow disk resolves once the checks show it only as the past', () => {
    const slow = reportOf(
      clusterEvidence({
        'etcd-2': { metrics: ok(metricsData({ walFsync: { ...latency(48, 30, 400), windowSeconds: 3 } })) },
      }),
    );
    const past = reportOf(
      clusterEvidence({
        'etcd-2': { metrics: ok(metricsData({ walFsync: sinceStart(latency(241, 18, 1381), 14) })) },
      }),
    );
    let streak: Streak = { bad: 0, good: 0 };
    streak = nextStreak(slow, streak);
    streak = nextStreak(slow, streak);
    const opened = decideIncident(slow, streak, undefined);
    expect(opened).toMatchObject({ kind: 'open', subject: { cause: 'slow-disk', members: ['etcd-2'] } });
    const subject = opened.kind === 'open' ? opened.subject : undefined;
    const actions: string[] = [];
    for (let i = 0; i < 3; i++) {
      streak = nextStreak(past, streak);
      actions.push(decideIncident(past, streak, subject).kind);
    }
    expect(past.status).toBe('healthy');
    expect(actions).toEqual(['none', 'none', 'resolve']);
  });
});
