import { describe, expect, it } from '@jest/globals';
import { awaitElection, type ElectionOptions } from '../../../src/probes/election.js';
import type { MemberEvidence, StatusData } from '../../../src/probes/evidence.js';
import type { Outcome } from '../../../src/probes/outcome.js';
import { clusterEvidence, failed, ok } from '../../support/evidence/evidence.js';

/** Status answers scripted per member and poll; a clock that moves only when the wait sleeps. */
function scripted(answers: Record<string, string[]>) {
  let t = 0;
  const asked: string[] = [];
  const polls = new Map<string, number>();
  const opts: ElectionOptions = {
    listedVoters: 3,
    timeoutMs: 3000,
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
    askStatus: async (m: MemberEvidence): Promise<Outcome<StatusData>> => {
      asked.push(m.target.name);
      const n = polls.get(m.target.name) ?? 0;
      polls.set(m.target.name, n + 1);
      const script = answers[m.target.name] ?? [];
      const leaderId = script[Math.min(n, script.length - 1)] ?? '0';
      if (!m.status.ok) throw new Error('a member that did not answer is not asked again');
      return ok({ ...m.status.data, leaderId, raftTerm: m.status.data.raftTerm + 1 });
    },
    askHealth: async () => ok({ tookMs: 4 }),
  };
  return { opts, asked };
}

const down = failed('unreachable', 'etcd-1 is unreachable');
const interrupted = failed(
  'error',
  'etcd-2 answered, but a linearizable read failed: etcdserver: leader changed',
);
const noLeader = (evidence = clusterEvidence()) => evidence.members;

describe('awaitElection', () => {
  it('asks again until a quorum names a leader, then asks the reads again', async () => {
    const members = clusterEvidence({
      'etcd-1': { status: down, health: down },
      'etcd-2': { leaderId: '0', health: interrupted },
      'etcd-3': {
        leaderId: '0',
        health: failed('timeout', 'etcd-3 did not answer a linearizable read in 3 s'),
      },
    }).members;
    const { opts } = scripted({ 'etcd-2': ['0', '0', 'a3'], 'etcd-3': ['0', 'a3'] });
    const { members: after, election } = await awaitElection(members, opts);
    expect(election).toEqual({
      waitedMs: 300,
      leaderless: ['etcd-2', 'etcd-3'],
      interrupted: ['etcd-2'],
      leaderId: 'a3',
    });
    expect(after.map((m) => [m.target.name, m.health.ok, m.status.ok && m.status.data.leaderId])).toEqual([
      ['etcd-1', false, false],
      ['etcd-2', true, 'a3'],
      ['etcd-3', true, 'a3'],
    ]);
  });

  it('does not take the lost leader, still named by stale answers, for a new one', async () => {
    const members = clusterEvidence({
      'etcd-1': { status: down, health: down },
      'etcd-2': { leaderId: '0', health: interrupted },
      'etcd-3': { leaderId: 'a1', health: interrupted },
    }).members;
    const { opts } = scripted({ 'etcd-2': ['a1'], 'etcd-3': ['a1'] });
    const { members: after, election } = await awaitElection(members, opts);
    expect(election).toMatchObject({ waitedMs: 3000, leaderless: ['etcd-2'] });
    expect(election?.leaderId).toBeUndefined();
    expect(after).toBe(members);
  });

  it('waits for nothing when a read proved quorum, or when the members that answer cannot form one', async () => {
    const healthy = scripted({});
    expect(await awaitElection(noLeader(), healthy.opts)).toEqual({ members: noLeader() });
    const alone = clusterEvidence({
      'etcd-1': { status: down, health: down },
      'etcd-2': { status: down, health: down },
      'etcd-3': { leaderId: '0', health: interrupted },
    }).members;
    const lone = scripted({ 'etcd-3': ['0'] });
    expect((await awaitElection(alone, lone.opts)).election).toBeUndefined();
    expect([...healthy.asked, ...lone.asked]).toEqual([]);
  });
});
