import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import { formatBytes, formatPercent } from '../../format.js';
import type { RemediationStep } from '../finding.js';
import { dataOf, kubernetesOf } from './kubernetes.js';

/** etcdserver/quota.go DefaultQuotaBytes: 2 GiB when --quota-backend-bytes is not set. */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 ** 3;

/**
 * One member's database size, in-use size and quota, from one place for every rule and renderer
 * (read in two places, health once said "quota 2.1 GB" where diagnose said 16.8 MB for the same
 * cluster). Sizes
 * come from Status; the quota from the member's /metrics (`etcd_server_quota_backend_bytes`), else
 * its static pod's `--quota-backend-bytes`, else it is not known: a health check reads no /metrics,
 * and a number assumed there must not be shown as the quota.
 */
export interface MemberSpace {
  name: string;
  db: number;
  inUse: number;
  /** Undefined when neither /metrics nor the pod spec said. */
  quota: number | undefined;
  /** Old key versions a compaction could remove (compactableVersions), when /metrics said. */
  compactable?: number;
  /** Live keys (etcd_debugging_mvcc_keys_total), when /metrics said. */
  keys?: number;
}

export function spaceOf(evidence: Evidence, m: MemberEvidence): MemberSpace | undefined {
  if (!m.status.ok) return undefined;
  const fromMetrics = m.metrics.ok ? m.metrics.data.gauges.quotaBackendBytes : undefined;
  const compactable = compactableVersions(m);
  const keys = m.metrics.ok ? m.metrics.data.gauges.keysTotal : undefined;
  return {
    name: m.target.name,
    db: m.status.data.dbSizeBytes,
    inUse: m.status.data.dbSizeInUseBytes,
    quota: fromMetrics ?? podSpecQuota(evidence, m.target.name),
    ...(compactable !== undefined ? { compactable } : {}),
    ...(keys !== undefined ? { keys } : {}),
  };
}

/**
 * Old key versions a compaction could remove, estimated from mvcc's gauges: each revision since
 * the last compaction wrote at most one old version worth keeping apart, and every revision that
 * is not a live key's is old (`current - compact`, `current - keys`, the smaller). Undefined
 * without the gauges (etcd 3.3, or no /metrics).
 */
export function compactableVersions(m: MemberEvidence): number | undefined {
  if (!m.metrics.ok) return undefined;
  const { keysTotal, currentRevision, compactRevision } = m.metrics.data.gauges;
  if (keysTotal === undefined || currentRevision === undefined || compactRevision === undefined)
    return undefined;
  // etcd reports -1 until the first compaction.
  const since = currentRevision - Math.max(compactRevision, 0);
  return Math.max(0, Math.min(since, currentRevision - keysTotal));
}

/** What a compaction could remove is a tenth of the live keys or less (or a handful): it frees ~0. */
export function historyCompacted(s: MemberSpace): boolean {
  return s.compactable !== undefined && s.keys !== undefined && s.compactable <= Math.max(10, s.keys / 10);
}

/** The quota to judge against: the member's own, or etcd's default when it is not known. */
export function judgedQuota(s: MemberSpace): number {
  return s.quota ?? DEFAULT_QUOTA_BYTES;
}

/** `db 16.5 MB (in use 16.5 MB) of quota 16.8 MB = 98 %`, or, without a known quota, the sizes and why. */
export function spaceWords(s: MemberSpace, why: string): string {
  const sizes = `db ${formatBytes(s.db)} (in use ${formatBytes(s.inUse)})`;
  if (s.quota === undefined) return `${sizes}; quota not read (${why})`;
  return `${sizes} of quota ${formatBytes(s.quota)} = ${formatPercent(s.db / s.quota)}`;
}

/** Why the quota is not known, for the evidence line: what was not read. */
export function quotaUnknownWhy(m: MemberEvidence): string {
  if (m.metrics.ok) return 'its /metrics have no etcd_server_quota_backend_bytes';
  return m.metrics.failure.kind === 'skipped'
    ? 'a health check does not read /metrics; diagnose does'
    : `no /metrics: ${m.metrics.failure.message}`;
}

function podSpecQuota(evidence: Evidence, member: string): number | undefined {
  const specs = dataOf(kubernetesOf(evidence)?.etcdPods);
  return specs?.find((s) => s.memberName === member)?.quotaBackendBytes;
}

/**
 * In use at this share of the quota or more, with the history compacted (historyCompacted), a
 * defragmentation leaves the database at least that full: past the warning line (CEOP
 * etcdDatabaseQuotaLowSpace: > 75 % warning, as db-quota.ts), with a quarter of the quota or less
 * before NOSPACE comes back once the alarm is disarmed. Only more room or less data helps then
 * (etcd maintenance guide "Space quota"). The critical line (85 %) was the first choice: a quota
 * filled with 100 KiB values stops at 84-87 % in use (bbolt's free pages are the rest), so the
 * same full database was told "make room" or "compact" by a coin toss.
 */
export const FULL_OF_DATA = 0.75;

/**
 * The step that leads when the data itself fills the quota (`2.1 GB in use of quota 2.1 GB`):
 * raise the quota or remove what fills it; compacting and defragmenting come after.
 */
export function makeRoomStep(what: string): RemediationStep {
  return {
    text: `Make room first: ${what}, so compacting and defragmenting cannot free enough. Raise --quota-backend-bytes (8 GiB at most, etcd FAQ) with a rolling restart, one member at a time, or remove what fills it (\`etcd-doctor space <cluster>\` names it)`,
  };
}
