import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { failureTolerance, quorumOf, votersAmong } from '../../../src/etcd/quorum.js';
import type { AccessProblem, Evidence, MemberEvidence } from '../../../src/probes/evidence.js';
import { clusterEvidence, failed, member } from '../../support/evidence/evidence.js';

const ctx = { now: Date.parse('2026-11-29T03:00:05Z') };

const refused = failed('unreachable', 'connection refused');
const noCert: AccessProblem = {
  kind: 'client-cert-required',
  ours: true,
  reason: 'the server requires a client certificate (TLS alert 42, bad certificate)',
  fix: 'set clusters[0].etcd.tls.certFile and keyFile',
};

function blocked(m: MemberEvidence, access?: AccessProblem): MemberEvidence {
  const failure = access ? failed('error', `${m.target.name}: ${access.reason}`) : refused;
  return {
    ...m,
    health: failure,
    status: failure,
    metrics: failure,
    clock: failure,
    ...(access ? { access } : {}),
  };
}

function allBlocked(access?: AccessProblem): Evidence {
  const e = clusterEvidence();
  return { ...e, memberList: refused, alarms: refused, members: e.members.map((m) => blocked(m, access)) };
}

describe('quorum counting (shared with the remediation guard)', () => {
  it('counts voters only: 3 voters and a learner have quorum 2 and one failure to spare', () => {
    const members = [{ isLearner: false }, { isLearner: false }, { isLearner: false }, { isLearner: true }];
    const voters = votersAmong(members).length;
    expect(voters).toBe(3);
    expect(quorumOf(voters)).toBe(2);
    expect(failureTolerance(voters, 3)).toBe(1);
    expect(failureTolerance(5, 3)).toBe(0);
  });
});

describe('the view: what etcd-doctor cannot see is never a cluster failure', () => {
  it('no member accessible for our own reason: unknown, only no-access, the fix in one line', () => {
    const result = diagnose(allBlocked(noCert), rules, ctx);
    expect(result.status).toBe('unknown');
    expect(result.vantage.blind).toBe(true);
    expect(result.findings.map((f) => f.cause)).toEqual(['no-access']);
    expect(result.findings[0]?.summary).toBe(
      'etcd-doctor could not check test: etcd-1, etcd-2 and etcd-3: the server requires a client certificate (TLS alert 42, bad certificate): set clusters[0].etcd.tls.certFile and keyFile',
    );
    const skipped = result.trace.filter((t) => t.skipped).map((t) => t.rule);
    expect(skipped).toEqual(expect.arrayContaining(['quorum-lost', 'member-down', 'slow-disk']));
  });

  it('one member behind our own access problem: left out of the verdict, not down', () => {
    const e = clusterEvidence();
    const members = e.members.map((m) => (m.target.name === 'etcd-3' ? blocked(m, noCert) : m));
    const result = diagnose({ ...e, members }, rules, ctx);
    expect(result.status).toBe('healthy');
    expect(result.findings.map((f) => f.cause)).toEqual(['no-access']);
    expect(result.findings[0]?.members).toEqual(['etcd-3']);
  });

  it('two of three refused while etcd-1 served a linearizable read: quorum holds, they are unreachable from here', () => {
    const e = clusterEvidence();
    const members = e.members.map((m) => (m.target.name === 'etcd-1' ? m : blocked(m)));
    const result = diagnose({ ...e, members }, rules, ctx);
    expect(result.findings.map((f) => f.cause)).not.toContain('quorum-lost');
    expect(result.findings.map((f) => f.cause)).not.toContain('member-down');
    expect(result.findings.find((f) => f.cause === 'unreachable-from-here')?.summary).toMatch(
      /^etcd-2 and etcd-3 do not answer etcd-doctor \(connections fail or time out\), but etcd-1 served a linearizable read, which needs a quorum/,
    );
  });

  it('two of three refused and the survivor sees no leader: quorum-lost, without restore advice', () => {
    const e = clusterEvidence();
    const survivor = member({
      name: 'etcd-1',
      id: 'a1',
      leaderId: '0',
      health: failed('timeout', 'did not answer'),
    });
    const members = e.members.map((m) => (m.target.name === 'etcd-1' ? survivor : blocked(m)));
    const result = diagnose({ ...e, members }, rules, ctx);
    expect(result.findings[0]?.cause).toBe('quorum-lost');
    // No step restores anything; the one step that names a restore is the read-only recovery plan
    // (issue 40), which only says where a person would restore from.
    expect(
      result.findings[0]?.steps.filter(
        (s) => /restore/i.test(s.text) && !/^Do not/.test(s.text) && s.action !== 'recovery-plan',
      ),
    ).toEqual([]);
    expect(result.findings[0]?.steps.find((s) => s.action === 'recovery-plan')?.text).toMatch(
      /read-only: etcd-doctor runs none of them/,
    );
  });

  it('a learner down beside three healthy voters: a warning, quorum 2 of 3, one to spare', () => {
    const e = clusterEvidence();
    const learner = blocked(member({ name: 'etcd-4', id: 'a4' }));
    const evidence: Evidence = {
      ...e,
      memberList: {
        ok: true,
        durationMs: 1,
        data: [
          ...(e.memberList.ok ? e.memberList.data : []),
          { id: 'a4', name: 'etcd-4', peerUrls: [], clientUrls: [learner.target.endpoint], isLearner: true },
        ],
      },
      members: [...e.members, learner],
    };
    const result = diagnose(evidence, rules, ctx);
    expect(result.status).toBe('degraded');
    expect(result.findings[0]).toMatchObject({
      cause: 'member-down',
      severity: 'warning',
      members: ['etcd-4'],
    });
    expect(result.findings[0]?.summary).toContain(
      '3 of 3 voting members serve, and the cluster can survive 1 more failure',
    );
  });

  it('a stalled observer: latency rules not evaluated, observer-load says why', () => {
    const e = clusterEvidence({ 'etcd-2': { health: { ok: true, durationMs: 900, data: { tookMs: 900 } } } });
    const stalled: Evidence = {
      ...e,
      observer: {
        loopDelayP99Ms: 180,
        loopDelayMaxMs: 240,
        loopDelayMeanMs: 60,
        samples: 120,
        concurrentRuns: 1,
        windowMs: 3000,
      },
    };
    const result = diagnose(stalled, rules, ctx);
    expect(result.findings.map((f) => f.cause)).toEqual(['observer-load']);
    expect(result.trace.find((t) => t.rule === 'slow-reads')?.explain[0]).toMatch(
      /^not evaluated: etcd-doctor's own event loop/,
    );
    const calm = diagnose(e, rules, ctx);
    expect(calm.findings[0]?.cause).toBe('slow-reads');
  });
});
