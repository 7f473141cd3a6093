import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { knownBugRule } from '../../../src/diagnosis/rules/known-bug.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import {
  compareVersions,
  KNOWN_BUGS,
  knownBugsOf,
  parseEtcdVersion,
  patchToReach,
} from '../../../src/etcd/known-bugs.js';
import type { Evidence, StatusData } from '../../../src/probes/evidence.js';
import { clusterEvidence, ok, statusData } from '../../support/evidence/evidence.js';

const NOW = Date.parse('2026-11-29T03:00:00Z');

const status = (id: string, version: string): StatusData => statusData(id, { version });

function running(v1: string, v2 = v1, v3 = v1): Evidence {
  return clusterEvidence({
    'etcd-1': { status: ok(status('a1', v1)) },
    'etcd-2': { status: ok(status('a2', v2)) },
    'etcd-3': { status: ok(status('a3', v3)) },
  });
}

/** The patch just below `v` (3.5.3 → 3.5.2); undefined for x.y.0 and pre-releases. */
function patchBelow(v: string): string | undefined {
  const p = parseEtcdVersion(v);
  if (!p || p.pre || p.patch === 0) return undefined;
  return `${p.major}.${p.minor}.${p.patch - 1}`;
}

describe('the known-bug table', () => {
  it('carries its date, and every row has a link and ranges in order', () => {
    expect(KNOWN_BUGS.length).toBeGreaterThanOrEqual(12);
    for (const bug of KNOWN_BUGS) {
      expect(bug.link).toMatch(/^https:\/\//);
      for (const r of bug.affected) {
        const from = parseEtcdVersion(r.from);
        const fixed = parseEtcdVersion(r.fixed);
        expect(from && fixed && compareVersions(from, fixed) < 0).toBe(true);
      }
    }
  });

  // Each row at its boundaries: its first affected version and the patch before the fix have it,
  // the fixed patch does not (a one-member cluster for the row that needs one).
  for (const bug of KNOWN_BUGS)
    for (const range of bug.affected)
      it(`${bug.id} in ${range.from} .. ${range.fixed}`, () => {
        const memberCount = bug.singleMemberOnly ? 1 : 3;
        const has = (v: string) => knownBugsOf(v, { memberCount }).some((h) => h.bug.id === bug.id);
        expect(has(range.from)).toBe(true);
        const below = patchBelow(range.fixed);
        if (below) expect(has(below)).toBe(true);
        expect(has(range.fixed)).toBe(false);
        expect(has(`v${range.fixed}`)).toBe(false);
      });

  it('the durability bug only for a one-member cluster', () => {
    const ids = (n: number) => knownBugsOf('3.5.4', { memberCount: n }).map((h) => h.bug.id);
    expect(ids(1)).toContain('etcd-14370');
    expect(ids(3)).not.toContain('etcd-14370');
  });

  it('the patch to reach fixes every bug of the release', () => {
    expect(patchToReach(knownBugsOf('3.4.23', { memberCount: 3 }))).toBe('3.4.42');
    expect(patchToReach(knownBugsOf('3.5.30', { memberCount: 3 }))).toBe('3.5.33');
    expect(knownBugsOf('3.5.33', { memberCount: 3 })).toEqual([]);
    expect(knownBugsOf('3.7.1', { memberCount: 3 })).toEqual([]);
    expect(knownBugsOf('not a version', { memberCount: 3 })).toEqual([]);
    expect(knownBugsOf('3.7.0-rc.0', { memberCount: 3 }).map((h) => h.bug.id)).toContain(
      'GHSA-3wh4-j44w-pg92',
    );
  });
});

describe('known-bug', () => {
  it('3.4.23: a warning (a corruption bug) naming the members, the bug, the link and 3.4.42', () => {
    const finding = knownBugRule.evaluate(running('3.4.23'), { now: NOW }).finding;
    expect(finding).toMatchObject({ cause: 'known-bug', severity: 'warning' });
    expect(finding?.members).toEqual(['etcd-1', 'etcd-2', 'etcd-3']);
    expect(finding?.summary).toBe(
      'etcd-1, etcd-2 and etcd-3 run etcd 3.4.23, missing 1 known corruption bug and 4 security fixes: upgrade to 3.4.42 or later (etcd CHANGELOGs and advisories as of 2026-08-20)',
    );
    expect(finding?.evidence).toContain(
      'etcd-1, etcd-2 and etcd-3 (3.4.23): etcd-20653 [corruption] a defragmentation while the member applies a snapshot from the leader can corrupt its database; fixed in 3.4.38: https://github.com/etcd-io/etcd/pull/20653',
    );
  });

  it('3.5.30: security fixes only, info', () => {
    const finding = knownBugRule.evaluate(running('3.5.30'), { now: NOW }).finding;
    expect(finding).toMatchObject({ severity: 'info' });
    expect(finding?.summary).toMatch(/missing 3 security fixes: upgrade to 3\.5\.33 or later/);
  });

  it('mixed versions: each group with its own patch; the fixed member is not named', () => {
    const finding = knownBugRule.evaluate(running('3.5.2', '3.5.33', '3.5.33'), { now: NOW }).finding;
    expect(finding?.members).toEqual(['etcd-1']);
    expect(finding?.severity).toBe('warning');
    expect(finding?.summary).toMatch(/^etcd-1 runs etcd 3\.5\.2, missing .*: upgrade to 3\.5\.33 or later/);
  });

  it('never sets the status, and comes after faults', () => {
    const d = diagnose(running('3.4.23'), rules, { now: NOW });
    expect(d.findings.map((f) => f.cause)).toContain('known-bug');
    expect(d.status).toBe('healthy');
  });

  it('a release with no known bug: nothing', () => {
    expect(knownBugRule.evaluate(running('3.6.14'), { now: NOW }).finding).toBeUndefined();
  });
});

describe('known-bug: a version its Kubernetes no longer supports', () => {
  /** Only what the rule reads of Kubernetes: kubeadm, and the apiserver's /version. */
  function onKubeadm(evidence: Evidence, gitVersion: string): Evidence {
    const skipped = { ok: false as const, failure: { kind: 'skipped' as const, message: 'not read' } };
    const kubernetes = {
      distribution: 'kubeadm' as const,
      server: 'https://127.0.0.1:6443',
      collectedAt: NOW,
      pods: skipped,
      logs: skipped,
      leases: skipped,
      nodes: skipped,
      staticPods: skipped,
      etcdPods: skipped,
      apiserver: ok({
        readyz: skipped,
        latency: ok({ getNamespaceMs: 3, versionMs: 1, gitVersion }),
        etcdRequests: skipped,
      }),
      events: skipped,
    };
    return { ...evidence, kubernetes: ok(kubernetes) } as unknown as Evidence;
  }

  it('kubeadm 1.36 with etcd 3.5.33 (no known bug): a warning naming the members, 3.6.0 and kubernetes#135701', () => {
    const finding = knownBugRule.evaluate(onKubeadm(running('3.5.33'), 'v1.36.2'), { now: NOW }).finding;
    expect(finding?.severity).toBe('warning');
    expect(finding?.summary).toBe(
      'etcd-1, etcd-2 and etcd-3 run etcd 3.5.33, which Kubernetes 1.36 (kubeadm) no longer supports (below 3.6.0)',
    );
    expect(finding?.evidence[0]).toBe(
      'kubeadm 1.36 supports etcd 3.6.0 or later: https://github.com/kubernetes/kubernetes/pull/135701',
    );
  });

  it('kubeadm 1.35 with etcd 3.5.33: nothing; kubeadm 1.36 with 3.6.14: nothing', () => {
    expect(
      knownBugRule.evaluate(onKubeadm(running('3.5.33'), 'v1.35.0'), { now: NOW }).finding,
    ).toBeUndefined();
    expect(
      knownBugRule.evaluate(onKubeadm(running('3.6.14'), 'v1.36.0'), { now: NOW }).finding,
    ).toBeUndefined();
  });
});
