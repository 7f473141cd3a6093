import { describe, expect, it } from '@jest/globals';
import type { DiagnosisReport, FindingJson } from '../../../src/contracts/report-json.js';
import type { Cause, Severity } from '../../../src/diagnosis/finding.js';
import {
  actionableFindings,
  decideIncident,
  nextStreak,
  type Streak,
} from '../../../src/watch/incident-decision.js';
import { watchedClusters } from '../../../src/config/watched.js';
import { configFileSchema } from '../../../src/config/schema.js';

function finding(cause: Cause, severity: Severity, summary = `${cause} on etcd-2`): FindingJson {
  return {
    cause,
    severity,
    members: ['etcd-2'],
    nodes: [],
    summary,
    evidence: [],
    remediation: [],
    causedBy: null,
    steps: [],
    unknowns: [],
  };
}

function report(findings: FindingJson[], status?: DiagnosisReport['status']): DiagnosisReport {
  return {
    cluster: 'prod',
    status: status ?? (findings.length ? 'degraded' : 'healthy'),
    durationMs: 100,
    members: [],
    findings,
    probes: [],
    kind: 'diagnose',
    collectedAt: new Date(0).toISOString(),
  };
}

/** Runs checks in order and returns what the incident did after each. */
function run(checks: DiagnosisReport[]): string[] {
  let streak: Streak = { bad: 0, good: 0 };
  let open: { cause: string; severity: 'critical' | 'warning'; members: string[] } | undefined;
  let previousRoot: string | undefined;
  return checks.map((r) => {
    streak = nextStreak(r, streak);
    const action = decideIncident(r, streak, open, previousRoot);
    previousRoot = actionableFindings(r)[0]?.cause;
    if (action.kind === 'open' || action.kind === 'update') open = action.subject;
    if (action.kind === 'resolve') open = undefined;
    return action.kind === 'none'
      ? '-'
      : `${action.kind}${'subject' in action ? `:${action.subject.cause}` : ''}`;
  });
}

const slow = report([finding('slow-disk', 'warning')]);
const slower = report([finding('slow-disk', 'critical')]);
const healthy = report([]);

describe('when the watch opens, updates and resolves an incident', () => {
  it('opens on the second warning in a row, updates when the severity changes, posts nothing for unchanged checks, resolves after 3 healthy', () => {
    expect(
      run([
        slow,
        healthy,
        slow,
        slow,
        slow,
        slower,
        slower,
        healthy,
        healthy,
        slow,
        healthy,
        healthy,
        healthy,
      ]),
    ).toEqual([
      '-',
      '-',
      '-',
      'open:slow-disk',
      '-',
      'update:slow-disk', // warning -> critical
      '-',
      '-',
      '-',
      'update:slow-disk', // critical -> warning again
      '-',
      '-',
      'resolve',
    ]);
  });

  it('opens at once for a member down, quorum lost or the NOSPACE alarm', () => {
    expect(run([report([finding('member-down', 'critical')])])).toEqual(['open:member-down']);
    expect(run([report([finding('quorum-lost', 'critical')])])).toEqual(['open:quorum-lost']);
    expect(run([report([finding('db-quota', 'critical', 'The NOSPACE alarm is active')])])).toEqual([
      'open:db-quota',
    ]);
    expect(run([report([finding('db-quota', 'critical', 'The database uses 96 % of its quota')])])).toEqual([
      '-',
    ]);
  });

  it('never opens for view limits or info findings, and they do not count as healthy', () => {
    const view = report([finding('observer-load', 'warning'), finding('no-access', 'critical')], 'unknown');
    const info = report([finding('db-fragmentation', 'info')], 'healthy');
    expect(run([view, view, view, info, info])).toEqual(['-', '-', '-', '-', '-']);
    expect(run([slow, slow, view, view, view, healthy, healthy, healthy])).toEqual([
      '-',
      'open:slow-disk',
      '-',
      '-',
      '-',
      '-',
      '-',
      'resolve',
    ]);
  });

  it('updates when two checks in a row name another root cause, at once for a member down', () => {
    const churn = report([finding('leader-churn', 'warning'), finding('slow-disk', 'warning')]);
    expect(run([slow, slow, churn, churn, churn])).toEqual([
      '-',
      'open:slow-disk',
      '-',
      'update:leader-churn',
      '-',
    ]);
    // One check naming another cause, then the first again: the thread is left alone.
    expect(run([slow, slow, churn, slow, slow])).toEqual(['-', 'open:slow-disk', '-', '-', '-']);
    const down = report([finding('member-down', 'critical'), finding('slow-disk', 'warning')]);
    expect(run([slow, slow, down])).toEqual(['-', 'open:slow-disk', 'update:member-down']);
  });
});

describe('which clusters are watched', () => {
  const parse = (extra: object) =>
    configFileSchema.parse({
      clusters: [
        { name: 'a', etcd: { endpoints: ['http://127.0.0.1:2379'] } },
        { name: 'b', etcd: { endpoints: ['http://127.0.0.1:2379'] }, watch: { intervalSeconds: 10 } },
      ],
      ...extra,
    });

  it('watches a cluster with its own interval, others only with a top-level default', () => {
    expect(watchedClusters(parse({}))).toEqual([{ cluster: 'b', intervalSeconds: 10 }]);
    expect(watchedClusters(parse({ watch: { intervalSeconds: 60 } }))).toEqual([
      { cluster: 'a', intervalSeconds: 60 },
      { cluster: 'b', intervalSeconds: 10 },
    ]);
  });

  it('refuses an interval under 5 s or not a whole number, saying what to write', () => {
    const bad = configFileSchema.safeParse({
      clusters: [
        { name: 'a', etcd: { endpoints: ['http://127.0.0.1:2379'] }, watch: { intervalSeconds: 2 } },
      ],
    });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toMatch(/at least 5/);
    const frac = configFileSchema.safeParse({
      clusters: [{ name: 'a', etcd: { endpoints: ['http://127.0.0.1:2379'] } }],
      watch: { intervalSeconds: 7.5 },
    });
    expect(JSON.stringify(frac.error?.issues)).toMatch(/whole number/);
  });
});
