import { describe, expect, it } from '@jest/globals';
import { digestLine } from '../../../src/digest/digest-view.js';
import type { DiagnosisReport, MemberRow } from '../../../src/contracts/report-json.js';
import type { HistorySample } from '../../../src/state/history-sample.js';

function row(name: string, over: Partial<MemberRow> = {}): MemberRow {
  return {
    name,
    endpoint: `https://127.20.0.1${name.slice(-1)}:2379`,
    id: name,
    reachable: true,
    isLeader: false,
    isLearner: false,
    access: null,
    tookMs: 2,
    dbSizeBytes: 1_000_000,
    dbSizeInUseBytes: 900_000,
    version: '3.5.16',
    raftTerm: 2,
    walFsyncP99Ms: 2,
    walFsyncSamples: 100,
    backendCommitP99Ms: 4,
    clockOffsetMs: 1,
    error: null,
    ...over,
  };
}

function report(members: MemberRow[], over: Partial<DiagnosisReport> = {}): DiagnosisReport {
  return {
    cluster: 'prod',
    status: 'healthy',
    durationMs: 3000,
    members,
    findings: [],
    probes: [],
    kind: 'diagnose',
    collectedAt: '2026-11-29T03:00:00.000Z',
    ...over,
  };
}

const now = Date.parse('2026-11-29T09:00:00Z');

describe('the digest line of a cluster', () => {
  it('says what a defrag would free: in all, and on the member with the most', () => {
    const line = digestLine(
      {
        cluster: 'prod',
        ok: true,
        samples: [],
        report: report([
          row('etcd-1', { dbSizeBytes: 60_000_000, dbSizeInUseBytes: 12_000_000 }),
          row('etcd-2', { dbSizeBytes: 20_000_000, dbSizeInUseBytes: 12_000_000 }),
          row('etcd-3', { dbSizeBytes: null, dbSizeInUseBytes: null }),
        ]),
      },
      now,
    );
    expect(line).toContain('a defrag would free 56 MB (most on etcd-1: 48 MB)');
  });

  it('counts a learner as a learner', () => {
    const line = digestLine(
      {
        cluster: 'prod',
        ok: true,
        samples: [],
        report: report([
          row('etcd-1', { isLeader: true }),
          row('etcd-2'),
          row('etcd-3'),
          row('etcd-4', { isLearner: true }),
        ]),
      },
      now,
    );
    expect(line).toMatch(/^🟢 \*prod\* HEALTHY/);
    expect(line).toContain('1 learner');
  });

  it('says which members etcd-doctor could not check, with the unknown status', () => {
    const access = {
      kind: 'client-cert-required' as const,
      cause: 'no-access' as const,
      reason: 'x',
      fix: 'y',
    };
    const members = ['etcd-1', 'etcd-2', 'etcd-3'].map((n) =>
      row(n, { reachable: null, access, tookMs: null, dbSizeBytes: null }),
    );
    const line = digestLine(
      { cluster: 'prod', ok: true, samples: [], report: report(members, { status: 'unknown' }) },
      now,
    );
    expect(line).toMatch(/^⚪ \*prod\* UNKNOWN/);
    expect(line).toContain('3/3 members not checked by etcd-doctor');
    expect(line).not.toContain('members answer');
  });
});

describe('the trend arrows of a watched cluster', () => {
  const DAY = 24 * 3600_000;
  const day = {
    checks: 1440,
    fromMs: now - DAY,
    toMs: now,
    fsyncP99Ms: 9,
    commitP99Ms: 12,
    peerRttP99Ms: 1,
    leaderChanges: 0,
    db: null,
  };
  const sample = (
    daysAgo: number,
    fsyncMs: number,
    d?: [number | null, number | null, number],
  ): HistorySample => ({
    v: 1,
    t: now - daysAgo * DAY,
    s: 'healthy',
    m: [['etcd-1', fsyncMs, 2, 1, 1000, 900, 5]],
    r: {},
    f: [],
    ...(d ? { d } : {}),
  });
  const line = (samples: HistorySample[]) =>
    digestLine({ cluster: 'prod', ok: true, samples, report: report([row('etcd-1')]), day }, now);

  it("compare today's day of checks with yesterday's day of checks", () => {
    // Yesterday's digest kept its day: 3 ms over 1,440 checks; today 9 ms.
    expect(line([sample(1, 2, [3, 0, 1440])])).toMatch(/fsync p99 9 ms \(day p99 of 1,440 checks\) 1d↑/);
    expect(line([sample(1, 2, [9.5, 0, 1440])])).toMatch(/fsync p99 9 ms \(day p99 of 1,440 checks\) 1d→/);
  });

  it('draw no arrow against a day that only had 3-second windows', () => {
    // A one-off diagnosis yesterday saw 2 ms: a day p99 of 9 ms is not "up" from it.
    expect(line([sample(1, 2)])).toMatch(/fsync p99 9 ms \(day p99 of 1,440 checks\) 1d· 7d·/);
  });
});

describe('the digest line of a cluster running a release with a known bug', () => {
  it('stays healthy, and names the members and the patch to reach in a part of its own', () => {
    const finding = {
      cause: 'known-bug' as const,
      severity: 'warning' as const,
      members: ['etcd-1', 'etcd-2', 'etcd-3'],
      nodes: [],
      summary:
        'etcd-1, etcd-2 and etcd-3 run etcd 3.4.23, missing 1 known corruption bug and 4 security fixes: upgrade to 3.4.42 or later (etcd CHANGELOGs and advisories as of 2026-08-20)',
      evidence: [],
      steps: [],
      unknowns: [],
      remediation: [],
      causedBy: null,
    };
    const line = digestLine(
      {
        cluster: 'prod',
        ok: true,
        samples: [],
        report: report([row('etcd-1'), row('etcd-2'), row('etcd-3')], { findings: [finding] }),
      },
      now,
    );
    expect(line).toMatch(/^🟢 \*prod\* HEALTHY ·/);
    expect(line).toContain(':warning: known bugs on etcd-1, etcd-2 and etcd-3 (upgrade to 3.4.42)');
  });

  it('a version its Kubernetes no longer supports leads the part', () => {
    const finding = {
      cause: 'known-bug' as const,
      severity: 'warning' as const,
      members: ['etcd-1'],
      nodes: [],
      summary: 'etcd-1 runs etcd 3.5.33, which Kubernetes 1.36 (kubeadm) no longer supports (below 3.6.0)',
      evidence: [],
      steps: [],
      unknowns: [],
      remediation: [],
      causedBy: null,
    };
    const line = digestLine(
      { cluster: 'prod', ok: true, samples: [], report: report([row('etcd-1')], { findings: [finding] }) },
      now,
    );
    expect(line).toContain(
      ':warning: etcd-1 runs etcd 3.5.33, which Kubernetes 1.36 (kubeadm) no longer supports (below 3.6.0)',
    );
  });
});
