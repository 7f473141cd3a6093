import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { cpuStarvationRule, UNSTALLED_MIN_EVENTS } from './cpu-starvation.js';
import { kubernetesOf, memberOfScan, nodesOfMembers, scansOf } from '../support/kubernetes.js';
import { describeSignal, etcdSignalByMember, type MemberSignal } from '../support/logs.js';
import { NO_STAT } from '../support/faults.js';

/**
 * An authenticate request that takes this long holds the CPU: etcd checks the password with bcrypt
 * (cost 10 by default, --bcrypt-cost) before it proposes the request, a deliberately slow hash, and
 * warns of an apply over 100 ms; 300 ms is three times that bound (inference, as in issue 37: the
 * reports show 154–331 ms, etcd-io/etcd#12088, #10080, #11012).
 */
export const SLOW_AUTH_S = 0.3;

interface Starved {
  member: string;
  auth: MemberSignal;
  slow: number;
  late: MemberSignal;
  users: string[];
}

/**
 * F11 CPU starvation from the logs: the leader sends heartbeats late (`failed to send out heartbeat
 * on time`, etcd blames a slow disk) while authenticate requests take 300 ms and more (`request
 * "header:<…> authenticate:<name:…>" … took too long`, zap `apply request took too long` with the
 * same request): clients that log in for every request (or without reusing their token) keep the
 * CPU busy hashing passwords (etcd-io/etcd#10080: "as many as 12 new auth token requests per
 * second"; #11012: two nodes at high CPU). Not with slow fdatasync on the same member: a slow disk
 * makes every request slow, authentication included. Live, the cpu-starvation rule times the members.
 */
export const cpuStarvationLogsRule: Rule = {
  name: 'cpu-starvation-logs',
  cause: 'cpu-starvation',
  needs: ['kubernetes'],
  rank: cpuStarvationRule.rank,
  ...(cpuStarvationRule.explains ? { explains: cpuStarvationRule.explains } : {}),
  evaluate(evidence) {
    const late = etcdSignalByMember(evidence, (s) => s.signals.heartbeatLate);
    const fsync = new Set(etcdSignalByMember(evidence, (s) => s.signals.slowFdatasync).map((s) => s.member));
    const auth = etcdSignalByMember(evidence, (s) => s.signals.slowAuth ?? NO_STAT);
    const starved = auth.flatMap((a): Starved[] => {
      const slow = slowAuthOf(evidence, a.member);
      const beside = late.find((l) => l.member === a.member);
      // One GC pause makes one slow line: the stall counts from UNSTALLED_MIN_EVENTS lines of
      // either kind (the raft loop late, the password hash slow), with at least one of each.
      if (
        !beside ||
        slow.count === 0 ||
        slow.count + beside.count < UNSTALLED_MIN_EVENTS ||
        fsync.has(a.member)
      )
        return [];
      return [{ member: a.member, auth: a, slow: slow.count, late: beside, users: slow.users }];
    });
    const explain = [
      `authenticate requests over ${SLOW_AUTH_S * 1000} ms beside late heartbeats: ${auth.map((a) => `${a.member} ${slowAuthOf(evidence, a.member).count}`).join(', ') || 'none'} (${UNSTALLED_MIN_EVENTS} lines of the two together needed, and no slow fdatasync)`,
    ];
    if (starved.length === 0) return { explain };
    const members = starved.map((s) => s.member);
    const first = starved[0] as Starved;
    const finding: Finding = {
      cause: 'cpu-starvation',
      severity: 'warning',
      members,
      nodes: nodesOfMembers(evidence, members),
      summary: `${formatList(members)} ${members.length === 1 ? 'is' : 'are'} starved of CPU by authentication: ${first.slow} authenticate requests${first.users.length ? ` (user ${formatList(first.users)})` : ''} took ${SLOW_AUTH_S * 1000} ms or more (up to ${Math.round((first.auth.maxSeconds ?? 0) * 1000)} ms) while heartbeats went out late`,
      evidence: starved.flatMap((s) => [
        `${s.member}: ${describeSignal(s.auth, 'authenticate request took too long')}, ${s.slow} of them ${SLOW_AUTH_S * 1000} ms or more${s.users.length ? `, user ${formatList(s.users)}` : ''}`,
        `${s.member}: ${describeSignal(s.late, 'heartbeat sent late')}, and no slow fdatasync: the disk keeps up`,
        ...(s.auth.example ? [`e.g. ${s.auth.example}`] : []),
      ]),
      steps: [
        {
          text: `Find the clients that authenticate for every request (\`etcdctl --user\` in a loop, scripts, an operator without a token cache): each login is a bcrypt hash on ${formatList(members)}'s CPU; make them keep their token, or use client certificates (--client-cert-auth) instead of passwords`,
        },
        {
          text: 'Give etcd its own CPU meanwhile: a dedicated machine, cgroup isolation or a higher priority (etcd FAQ, tuning guide "CPU")',
        },
      ],
      unknowns: ['only logs: CPU use itself is not in them (process_cpu_seconds_total on /metrics)'],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};

/** A member's authenticate requests over SLOW_AUTH_S, and their users. */
function slowAuthOf(
  evidence: Parameters<Rule['evaluate']>[0],
  member: string,
): { count: number; users: string[] } {
  const stats = scansOf(kubernetesOf(evidence), 'etcd')
    .filter((s) => memberOfScan(evidence, s) === member)
    .flatMap((s) => (s.signals.slowAuth ? [s.signals.slowAuth] : []));
  return {
    count: stats.reduce((n, s) => n + s.seconds.filter((t) => t >= SLOW_AUTH_S).length, 0),
    users: [...new Set(stats.flatMap((s) => s.users))],
  };
}
