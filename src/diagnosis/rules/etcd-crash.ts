import type { CrashEvent } from '../../etcd/scan-faults.js';
import type { Evidence } from '../../probes/evidence.js';
import { matchKnownCrash } from '../../etcd/known-crashes.js';
import { formatList } from '../../format.js';
import type { Finding, RemediationStep } from '../finding.js';
import type { Rule } from '../rule.js';
import { etcdVersionOf } from '../support/faults.js';
import { kubernetesOf, memberOfScan, nodesOfMembers, scansOf } from '../support/kubernetes.js';
import { earliest, formatSpan, latest } from '../support/logs.js';

interface MemberCrash extends CrashEvent {
  member: string;
}

/**
 * etcd crashed on its own: a panic (Go `panic: …` with its goroutine trace, zap `panic` entries) or
 * a Go runtime fatal error, with no outside cause on the lines before it (a full disk, no file
 * descriptors, no memory, a damaged data dir, a removed member: scan-faults.ts marks those, and their
 * own causes report them). The finding gives the message, the first frames of etcd's code, the
 * version, and the known issue it matches where src/etcd/known-crashes.ts knows one ("etcd panics
 * if there happens something unexpected, and it should be reported to us to debug": etcd's
 * etcdserver commit message on fatal vs panic, mirrored at gitea.brokenlab.xyz).
 */
export const etcdCrashRule: Rule = {
  name: 'etcd-crash',
  cause: 'etcd-crash',
  needs: ['kubernetes'],
  rank: 11,
  explains: ['member-down', 'leader-churn', 'peer-network', 'slow-reads', 'control-plane-restarts'],
  evaluate(evidence) {
    const crashes = crashesOf(evidence);
    const own = crashes.filter((c) => !c.explainedBy);
    const explain = [
      `crashes in the etcd logs: ${crashes.length} messages, ${crashes.length - own.length} with an outside cause before them (${[...new Set(crashes.flatMap((c) => c.explainedBy ?? []))].join(', ') || 'none'})`,
    ];
    if (own.length === 0) return { explain };
    const members = [...new Set(own.map((c) => c.member))];
    const first = own[0] as MemberCrash;
    const version = etcdVersionOf(evidence, first.member);
    const known = matchKnownCrash(first.message, first.frames, version);
    const finding: Finding = {
      cause: 'etcd-crash',
      severity: 'critical',
      members,
      nodes: nodesOfMembers(evidence, members),
      summary: `etcd crashed on ${formatList(members)}${version ? ` (etcd ${version})` : ''}: "${first.message}"${known ? `, a known bug: ${known.what} (${known.issue})` : ', with no outside cause in its log'}`,
      evidence: own.slice(0, 3).flatMap((c) => describe(evidence, c)),
      steps: stepsOf(known, members),
      unknowns: version ? [] : ['the etcd version: no start line in the log and no etcd pod image'],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};

function crashesOf(evidence: Evidence): MemberCrash[] {
  const byKey = new Map<string, MemberCrash>();
  for (const scan of scansOf(kubernetesOf(evidence), 'etcd')) {
    const member = memberOfScan(evidence, scan);
    for (const e of scan.signals.crashes?.events ?? []) {
      const key = `${member}|${e.message}`;
      const seen = byKey.get(key);
      if (!seen) {
        byKey.set(key, { ...e, member, frames: [...e.frames] });
        continue;
      }
      seen.count += e.count;
      if (seen.frames.length === 0) seen.frames = [...e.frames];
      const first = earliest(seen.firstSeenAt, e.firstSeenAt);
      const last = latest(seen.lastSeenAt, e.lastSeenAt);
      if (first) seen.firstSeenAt = first;
      if (last) seen.lastSeenAt = last;
    }
  }
  return [...byKey.values()].sort((a, b) => b.count - a.count);
}

function describe(evidence: Evidence, c: MemberCrash): string[] {
  const span = formatSpan(c.firstSeenAt, c.lastSeenAt);
  const version = etcdVersionOf(evidence, c.member);
  return [
    `${c.member}: ${c.count} × "${c.message}"${span ? `, ${span}` : ''}${version ? `, etcd ${version}` : ''}`,
    ...(c.frames.length > 0 ? [`${c.member}: first frames: ${c.frames.join(' < ')}`] : []),
    `e.g. ${c.example}`,
  ];
}

function stepsOf(known: ReturnType<typeof matchKnownCrash>, members: string[]): RemediationStep[] {
  if (known) return [{ text: `Known bug (${known.issue}): ${known.fix}` }];
  return [
    {
      text: `Keep ${formatList(members)}'s log from before the crash with the whole trace, and \`etcd --version\`; search etcd's issues for the message and the first frames, and report it with both if it is new (etcd's bug reporting guide)`,
    },
    {
      text: `If ${formatList(members)} crashes again at every start, replace it: \`etcdctl member remove <id>\`, move its data dir aside, \`etcdctl member add\` and start it empty with --initial-cluster-state existing (runtime-configuration "Replace a failed machine"), one member at a time`,
    },
  ];
}
