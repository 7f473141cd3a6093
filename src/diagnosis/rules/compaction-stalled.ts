import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import { formatAge, formatCount, formatList } from '../../format.js';
import type { Finding, RemediationStep } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { kubernetesOf, memberOfScan, scansOf } from '../support/kubernetes.js';
import { votingMembers } from '../support/members.js';

/**
 * kube-apiserver compacts etcd every `--etcd-compaction-interval`, 5 min by default (KB §2
 * "kube-apiserver etcd compaction interval", K8S storagebackend/config.go DefaultCompactInterval);
 * 0 turns it off, and then etcd's own --auto-compaction-* or a cron must do it.
 */
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

/**
 * "Well over the interval": the apiserver compacts, each interval, to the revision it saw one
 * interval before, so in a healthy cluster the last compaction is at most one interval old, and
 * one failed attempt (a leader change, a timeout) makes it two. Three intervals without one means
 * at least two scheduled compactions in a row did not happen: stalled, not a blip (inference from
 * the apiserver's compactor, staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go).
 */
export const STALLED_AFTER_INTERVALS = 3;

/**
 * "Far": 10,000 revisions of uncompacted history. A small Kubernetes control plane writes ~400–500
 * revisions per 5 min (leases, events: the compaction lines in etcd-io/etcd#7944 step by that much),
 * so this is 1–2 h of a small cluster's writes and minutes of a busy one's. Below it the history
 * holds a few MB at Kubernetes object sizes (under 1 % of the default 2 GiB quota): a fresh
 * cluster, or an idle one, is not stalled in any way that matters yet (inference).
 */
export const FAR_REVISIONS = 10_000;

interface Reading {
  name: string;
  revision: number;
  /** -1: never compacted (etcd's gauge). */
  compactRevision: number;
  behind: number;
  /** How long since the last compaction, at least (exact on 3.5; the uptime when none since start). */
  ageMs: number | undefined;
  ageFrom: string;
}

/**
 * The revision ran far past the last compaction, for well over the compaction interval: the
 * history grows until the database reaches its quota (etcd-io/etcd#7944: no compaction for 3 days
 * filled the disk; kubernetes/kubernetes#94029: under NOSPACE the apiserver's compaction, which
 * starts with a write, fails, so the space never comes back). Read from each member's /metrics:
 * etcd_debugging_mvcc_current_revision and _compact_revision (3.4 and 3.5), the time of the last
 * compaction from _db_compaction_last (3.5), or, with no compaction since the member started, its
 * uptime as a lower bound. etcd 3.4 that compacted since it started does not say when: no verdict.
 */
export const compactionStalledRule: Rule = {
  name: 'compaction-stalled',
  cause: 'compaction-stalled',
  needs: ['metrics'],
  rank: 14,
  live: "the members' /metrics (current and compacted revision)",
  evaluate(evidence, ctx) {
    const intervalMs = ctx.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
    const limitMs = STALLED_AFTER_INTERVALS * intervalMs;
    const readings = votingMembers(evidence).flatMap((m) => readingOf(m, ctx.now, loggedAt(evidence, m)));
    const explain = explainLines(ctx, () =>
      readings.map(
        (r) =>
          `${r.name}: revision ${formatCount(r.revision)}, compacted at ${r.compactRevision < 0 ? 'never' : formatCount(r.compactRevision)} (${formatCount(r.behind)} behind; fires at >= ${formatCount(FAR_REVISIONS)}), last compaction ${r.ageMs === undefined ? `not known (${r.ageFrom})` : `${formatAge(r.ageMs)} ago, ${r.ageFrom}`} (fires past ${formatAge(limitMs)})`,
      ),
    );
    const stalled = readings.filter(
      (r) => r.behind >= FAR_REVISIONS && r.ageMs !== undefined && r.ageMs > limitMs,
    );
    const first = stalled[0];
    if (!first) return { explain };
    const finding: Finding = {
      cause: 'compaction-stalled',
      severity: 'warning',
      members: stalled.map((r) => r.name),
      nodes: [],
      summary: summaryOf(first, intervalMs, ctx.compactionIntervalMs !== undefined),
      evidence: [
        ...stalled.map(evidenceLine),
        `expected a compaction every ${formatAge(intervalMs)} (${ctx.compactionIntervalMs === undefined ? "kube-apiserver's default --etcd-compaction-interval" : 'maintenance.compactionIntervalSeconds'}); stalled past ${STALLED_AFTER_INTERVALS} intervals with >= ${formatCount(FAR_REVISIONS)} revisions behind`,
        ...nospaceLine(evidence),
      ],
      steps: STEPS,
      unknowns: [
        'a cluster compacted by other means (etcd --auto-compaction-retention, a cron) may compact less often by design: set maintenance.compactionIntervalSeconds to its interval',
      ],
    };
    return { finding, explain: [...explain, `fired: ${formatList(finding.members)}`] };
  },
};

/** The member's last `finished scheduled compaction` in its etcd log (live, with Kubernetes): ISO time. */
function loggedAt(evidence: Evidence, m: MemberEvidence): string | undefined {
  return scansOf(kubernetesOf(evidence), 'etcd')
    .filter((s) => memberOfScan(evidence, s) === m.target.name)
    .map((s) => s.signals.compactions?.lastSeenAt)
    .filter((t): t is string => typeof t === 'string')
    .sort()
    .at(-1);
}

const FROM_GAUGE = 'etcd_debugging_mvcc_db_compaction_last';
const FROM_LOG = "its etcd log's last `finished scheduled compaction`";

function readingOf(m: MemberEvidence, now: number, logged: string | undefined): Reading[] {
  if (!m.metrics.ok) return [];
  const g = m.metrics.data.gauges;
  const revision = g.currentRevision ?? (m.status.ok ? m.status.data.revision : undefined);
  if (revision === undefined || g.compactRevision === undefined) return [];
  const behind = revision - Math.max(g.compactRevision, 1);
  const base = { name: m.target.name, revision, compactRevision: g.compactRevision, behind };
  if (g.lastCompactionSeconds !== undefined && g.lastCompactionSeconds > 0)
    return [{ ...base, ageMs: now - g.lastCompactionSeconds * 1000, ageFrom: FROM_GAUGE }];
  // A log tail ends now, so its last compaction line is the last compaction (3.4 exports no time).
  if (logged && Number.isFinite(Date.parse(logged)))
    return [{ ...base, ageMs: now - Date.parse(logged), ageFrom: `${FROM_LOG} at ${logged}` }];
  if (g.compactionsSinceStart === 0 && g.processStartTimeSeconds !== undefined)
    return [
      {
        ...base,
        ageMs: now - g.processStartTimeSeconds * 1000,
        ageFrom: 'none since the member started (process_start_time_seconds)',
      },
    ];
  return [
    {
      ...base,
      ageMs: undefined,
      ageFrom: `${formatCount(g.compactionsSinceStart ?? 0)} compactions since it started; etcd 3.4 does not export when the last one was, and no etcd log with one was read`,
    },
  ];
}

function summaryOf(r: Reading, intervalMs: number, configured: boolean): string {
  const age = formatAge(r.ageMs ?? 0);
  const since = r.ageFrom.startsWith('none since')
    ? `none in the ${age} since ${r.name} started`
    : `the last ${age} ago`;
  const history =
    r.compactRevision < 0
      ? `the keyspace was never compacted: ${formatCount(r.behind)} revisions of history`
      : `the revision ran ${formatCount(r.behind)} past the last compaction (at ${formatCount(r.compactRevision)})`;
  const expected = configured
    ? `compaction is expected every ${formatAge(intervalMs)}`
    : `kube-apiserver compacts every ${formatAge(intervalMs)} by default`;
  return `Compaction has stalled: ${history}, ${since}; ${expected}, and the history grows until the database reaches its quota`;
}

function evidenceLine(r: Reading): string {
  const compacted =
    r.compactRevision < 0 ? 'never compacted' : `compacted at ${formatCount(r.compactRevision)}`;
  const age = r.ageFrom.startsWith('none since')
    ? `no compaction in the ${formatAge(r.ageMs ?? 0)} since it started`
    : `last compaction ${formatAge(r.ageMs ?? 0)} ago (${r.ageFrom})`;
  return `${r.name}: revision ${formatCount(r.revision)}, ${compacted}: ${formatCount(r.behind)} revisions of history; ${age}`;
}

/** kubernetes/kubernetes#94029: the apiserver's compaction starts with a put, which NOSPACE refuses. */
function nospaceLine(evidence: Evidence): string[] {
  if (!evidence.alarms.ok || !evidence.alarms.data.some((a) => a.alarm === 'NOSPACE')) return [];
  return [
    'the NOSPACE alarm is active: kube-apiserver cannot compact while it is (its compaction starts with a write, kubernetes/kubernetes#94029); recover NOSPACE first',
  ];
}

/** The steps for the live and the log rule alike. */
export const STEPS: RemediationStep[] = [
  {
    text: 'Check that kube-apiserver compacts: its `--etcd-compaction-interval` (default 5m; 0 turns it off) in /etc/kubernetes/manifests/kube-apiserver.yaml, or `kubectl -n kube-system get pods -l component=kube-apiserver -o yaml | grep etcd-compaction-interval`; with it off, etcd needs --auto-compaction-mode/--auto-compaction-retention',
  },
  {
    text: "Find when compaction stopped: the last `finished scheduled compaction` in etcd's log, and `compact failed` in kube-apiserver's (kubernetes/kubernetes#94029, etcd-io/etcd#7944)",
  },
  {
    text: 'Stop the growth by hand: `etcdctl compact <current revision>` (from `etcdctl endpoint status -w json`), then defragment to return the space (etcd maintenance guide "History compaction")',
  },
];
