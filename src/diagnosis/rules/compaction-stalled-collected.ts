import type { Evidence } from '../../probes/evidence.js';
import type { ContainerLogScan } from '../../probes/kubernetes/evidence.js';
import { formatAge, formatCount, formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { kubernetesOf, memberOfScan, scansOf } from '../support/kubernetes.js';
import { spanSeconds } from '../support/logs.js';
import {
  compactionStalledRule,
  DEFAULT_COMPACTION_INTERVAL_MS,
  STALLED_AFTER_INTERVALS,
  STEPS,
} from './compaction-stalled.js';

/**
 * Compaction lines a log must hold before its silence after the last one counts: two show the
 * rhythm that stopped; one alone, followed by little, may be an excerpt someone cut (inference).
 */
export const MIN_COMPACTION_LINES = 2;

interface Gap {
  member: string;
  /** How long the log runs past its last compaction line (or, with none, how long it runs). */
  gapMs: number;
  count: number;
  lastRevision: number | undefined;
  lastAt: string | undefined;
  endAt: string;
  /** Compaction stopped this long between two of its lines, then resumed (longer than the silence at the end). */
  resumed?: { from: string; to: string };
}

/**
 * compaction-stalled from collected logs: every member logs `finished scheduled compaction` for
 * each compaction it applies (3.4 capnslog `… at <rev> (took …)`, zap with `compact-revision`), so
 * a log that runs on well past its last such line shows compaction stopped (etcd-io/etcd#7944: one
 * every 5 min, then none for 3 days). A log with none at all counts only beside a kube-apiserver log,
 * whose compactor writes one every interval; an etcd without Kubernetes may compact differently.
 */
export const compactionStalledCollectedRule: Rule = {
  name: 'compaction-stalled-logs',
  cause: 'compaction-stalled',
  needs: ['kubernetes'],
  rank: compactionStalledRule.rank,
  evaluate(evidence, ctx) {
    const intervalMs = ctx.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    const limitMs = STALLED_AFTER_INTERVALS * intervalMs;
    const withApiserver = scansOf(kubernetesOf(evidence), 'kube-apiserver').length > 0;
    const gaps = gapsOf(evidence, limitMs);
    const explain = gaps.map(
      (g) =>
        `${g.member}: ${g.count} compaction lines, ${g.lastAt ? `the last at ${g.lastAt}` : 'none'}; its log runs ${formatAge(g.gapMs)} past it, to ${g.endAt} (fires past ${formatAge(limitMs)} with >= ${MIN_COMPACTION_LINES} lines, or with none beside a kube-apiserver log)`,
    );
    const stalled = gaps.filter(
      (g) => g.gapMs > limitMs && (g.count >= MIN_COMPACTION_LINES || (g.count === 0 && withApiserver)),
    );
    if (stalled.length === 0) return { explain };
    const members = stalled.map((g) => g.member);
    const first = stalled[0];
    const finding: Finding = {
      cause: 'compaction-stalled',
      severity: 'warning',
      members,
      nodes: [],
      summary: `Compaction has stalled: ${first ? describeGap(first) : ''}; kube-apiserver compacts every ${formatAge(intervalMs)} by default, and the history grows until the database reaches its quota`,
      evidence: stalled.map((g) => `${g.member}: ${describeGap(g)}`),
      steps: STEPS,
      unknowns: [
        'only logs: the current revision is not known, so how much history piled up is not; `etcdctl endpoint status` and the compact revision in /metrics say',
        'a cluster compacted by other means (etcd --auto-compaction-retention, a cron) may compact less often by design; an etcd at --log-level=warn writes no compaction lines',
      ],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};

/** Per etcd member: the current log (not the previous one, which ended at a restart); a silence over `limitMs` inside it counts too. */
function gapsOf(evidence: Evidence, limitMs: number): Gap[] {
  const byMember = new Map<string, ContainerLogScan[]>();
  for (const scan of scansOf(kubernetesOf(evidence), 'etcd')) {
    const member = memberOfScan(evidence, scan);
    byMember.set(member, [...(byMember.get(member) ?? []), scan]);
  }
  return [...byMember.entries()].flatMap(([member, scans]) => {
    const current = scans.find((s) => !s.previous) ?? scans[0];
    if (!current?.lastLineAt) return [];
    const c = current.signals.compactions;
    const since = c && c.count > 0 ? c.lastSeenAt : current.firstLineAt;
    const tailS = spanSeconds(since, current.lastLineAt);
    if (tailS === undefined) return [];
    // A stall that ended inside the log (etcd-io/etcd#7944's three days) is the longest silence.
    const long = c?.longestGap;
    const inner = long && long.seconds > tailS && long.seconds * 1000 > limitMs ? long : undefined;
    return [
      {
        member,
        gapMs: (inner?.seconds ?? tailS) * 1000,
        ...(inner ? { resumed: { from: inner.from, to: inner.to } } : {}),
        count: c?.count ?? 0,
        lastRevision: c?.lastRevision,
        lastAt: c && c.count > 0 ? c.lastSeenAt : undefined,
        endAt: current.lastLineAt,
      },
    ];
  });
}

function describeGap(g: Gap): string {
  if (g.count === 0)
    return `no \`finished scheduled compaction\` line in ${formatAge(g.gapMs)} of etcd log (to ${g.endAt})`;
  if (g.resumed)
    return `no \`finished scheduled compaction\` line for ${formatAge(g.gapMs)}, from ${g.resumed.from} to ${g.resumed.to}, before compaction resumed (${g.count} lines in all): the history of that time piled up`;
  const rev = g.lastRevision === undefined ? '' : ` (revision ${formatCount(g.lastRevision)})`;
  return `the last \`finished scheduled compaction\` was logged at ${g.lastAt}${rev}, and the log runs ${formatAge(g.gapMs)} more, to ${g.endAt}, with none (${g.count} before it)`;
}
