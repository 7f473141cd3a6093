import { describe, expect, it } from '@jest/globals';
import type { DiagnosisReport, FindingJson } from '../../../src/contracts/report-json.js';
import { addFromHistory } from '../../../src/history/since-when-report.js';
import type { MinuteSample } from '../../../src/state/minute-sample.js';

/**
 * Issue 39 item 4: a member that is down now, which the watch saw near or out of file descriptors,
 * memory or disk in its last answering minutes, says so instead of a bare member-down.
 */
const MIN = 60_000;
type SampleFinding = MinuteSample['f'][number];

/** One watch check of three members with these findings (the minute history's shape). */
function check(t: number, f: SampleFinding[]): MinuteSample {
  return {
    v: 1,
    t,
    s: f.length ? 'degraded' : 'healthy',
    m: ['etcd-1', 'etcd-2', 'etcd-3'].map((name) => [name, 1, 1, 0.4, 0, 1, 1, 2, 0, []]),
    f,
  };
}

const down: FindingJson = {
  cause: 'member-down',
  severity: 'warning',
  members: ['etcd-2'],
  nodes: [],
  summary: 'etcd-2 does not answer',
  evidence: ['etcd-2: connect ECONNREFUSED 127.0.0.1:2479'],
  steps: [{ text: 'Look at why etcd-2 stopped' }],
  remediation: [],
  unknowns: [],
  causedBy: null,
};

const report = (findings: FindingJson[]): DiagnosisReport => ({
  cluster: 'prod',
  status: 'degraded',
  durationMs: 3000,
  members: [],
  findings,
  probes: [],
  kind: 'diagnose',
  collectedAt: '2024-05-02T02:30:00.000Z',
});

const t0 = Date.parse('2024-05-02T02:00:00Z');
const now = Date.parse('2024-05-02T02:30:00Z');
const fds: SampleFinding = ['fd-exhaustion', 'warning', ['etcd-2']];
const gone: SampleFinding = ['member-down', 'warning', ['etcd-2']];

describe('a member down after it ran out of something the watch saw', () => {
  it('out of file descriptors in its last minutes: the member-down names it, with what to do', () => {
    const samples = [
      check(t0, []),
      check(t0 + 10 * MIN, [fds]),
      check(t0 + 11 * MIN, [fds]),
      check(t0 + 12 * MIN, [gone]),
    ];
    const out = addFromHistory(report([down]), samples, now).findings[0];
    expect(out?.summary).toBe(
      'etcd-2 does not answer; the watch saw etcd-2 near or out of file descriptors just before',
    );
    expect(out?.evidence[0]).toBe(
      'before etcd-2 stopped answering (last answered at 02:11 UTC), the watch saw it near or out of file descriptors (fd-exhaustion [warning] at 02:11 UTC)',
    );
    expect(out?.steps[0]?.text).toMatch(/^etcd-2: raise its open-file limit/);
    expect(out?.evidence.slice(1)).toEqual(down.evidence);
  });

  it('out of memory on another member, or long before its last answer, or on a member that is up: a bare member-down', () => {
    const otherMember = [check(t0, [['out-of-memory', 'critical', ['etcd-3']]]), check(t0 + MIN, [gone])];
    const longBefore = [
      check(t0 - 60 * MIN, [fds]),
      ...Array.from({ length: 20 }, (_, i) => check(t0 + i * MIN, [])),
      check(t0 + 21 * MIN, [gone]),
    ];
    const told = (f: FindingJson | undefined) => ({
      summary: f?.summary,
      evidence: f?.evidence,
      steps: f?.steps,
    });
    for (const samples of [otherMember, longBefore, []])
      expect(told(addFromHistory(report([down]), samples, now).findings[0])).toEqual(told(down));
    const upNow = report([{ ...down, cause: 'slow-disk' }]);
    expect(addFromHistory(upNow, [check(t0, [fds])], now).findings[0]?.evidence).toEqual(down.evidence);
  });
});
