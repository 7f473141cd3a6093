import type { UnexplainedError } from '../../etcd/scan-logs.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { kubernetesOf, memberOfScan, scansOf } from '../support/kubernetes.js';
import { earliest, formatSpan, latest } from '../support/logs.js';

/** Messages quoted in the finding, the most frequent first. */
const QUOTED = 3;

type Summed = UnexplainedError & { members: Set<string> };

/** A message as the summary names it: what etcd means by it when the catalogue knows it. */
function said(e: UnexplainedError): string {
  return e.meaning ? `"${e.message}" (etcd means ${e.meaning})` : `"${e.message}"`;
}

/**
 * One evidence line. A message the catalogue (src/etcd/catalogue.ts) knows is quoted with its
 * meaning and the cause it is evidence for, which no rule named from this line; others raw.
 */
function quote(e: Summed): string {
  const span = formatSpan(e.firstSeenAt, e.lastSeenAt);
  const where = `${[...e.members].sort().join(', ')}${span ? `, ${span}` : ''}`;
  const means = e.meaning
    ? `: etcd means ${e.meaning}; evidence for ${e.evidenceFor}, which no rule named from it`
    : '';
  return `${e.count} × "${e.message}" (${where})${means}; e.g. ${e.example}`;
}

/**
 * Nothing unexplained is hidden: error-level etcd lines that no other signal counted
 * (scan-logs.ts `unexplainedErrors`) become an info finding that quotes the top messages with
 * their counts and times, so a report never says "nothing points at a problem" while etcd logged
 * errors. It names no cause of its own and explains nothing.
 */
export const unexplainedErrorsRule: Rule = {
  name: 'unexplained-errors',
  cause: 'unexplained-errors',
  needs: ['kubernetes'],
  rank: 80,
  evaluate(evidence) {
    const byMessage = new Map<string, Summed>();
    for (const scan of scansOf(kubernetesOf(evidence), 'etcd')) {
      for (const e of scan.signals.unexplainedErrors ?? []) {
        const sum = byMessage.get(e.message) ?? { ...e, count: 0, members: new Set<string>() };
        sum.count += e.count;
        const first = earliest(sum.firstSeenAt, e.firstSeenAt);
        const last = latest(sum.lastSeenAt, e.lastSeenAt);
        if (first) sum.firstSeenAt = first;
        if (last) sum.lastSeenAt = last;
        sum.members.add(memberOfScan(evidence, scan));
        byMessage.set(e.message, sum);
      }
    }
    const top = [...byMessage.values()].sort((a, b) => b.count - a.count);
    const total = top.reduce((n, e) => n + e.count, 0);
    const explain = [
      `${total} error-level etcd log lines no other rule counted, ${top.length} distinct messages`,
    ];
    if (top.length === 0) return { explain };
    const members = [...new Set(top.flatMap((e) => [...e.members]))].sort();
    const finding: Finding = {
      cause: 'unexplained-errors',
      severity: 'info',
      members,
      nodes: [],
      summary: `etcd logged ${total} error line${total === 1 ? '' : 's'} that no known cause explains; the most frequent: ${top[0] ? said(top[0]) : ''}`,
      evidence: top.slice(0, QUOTED).map(quote),
      steps: [
        {
          text: 'Read these lines in context (`journalctl -u etcd`, `kubectl logs -n kube-system etcd-<node>`): etcd-doctor knows no cause for them',
        },
      ],
      unknowns: [],
    };
    return { finding, explain };
  },
};
