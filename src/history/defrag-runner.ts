import type { DiagnosisReport, FindingJson } from '../contracts/report-json.js';
import { describeError } from '../errors.js';
import { formatAge } from '../format.js';
import type { Logger } from '../logger.js';
import { type AuditLog, type AuditRecord, MAINTENANCE_ACTOR } from '../state/audit-log.js';
import { withDeadline } from '../timing.js';

/**
 * Who ran the defragmentation a `defrag-in-progress` finding names (issue 39 item 5: "with who ran
 * it: our maintenance window, our button, or someone else"). etcd-doctor's own runs are in its
 * audit trail (state/audit-log.ts): a Defragment button or a maintenance window writes `started`
 * before its first member and `finished`/`failed` after its last. A run started and not ended, or
 * ended moments ago, is the one etcd is doing; with none, the defragmentation came from elsewhere
 * (a CronJob, an operator such as etcd-druid or cluster-etcd-operator's defrag controller, or
 * someone's `etcdctl defrag`: gardener/etcd-backup-restore#1052).
 */

/** How far back a run that has not ended is looked for: longer than any defragmentation of an 8 GiB db. */
const DEFRAG_RUN_LOOKBACK_MS = 6 * 3600_000;
/** A run that ended this recently still explains a member that was defragmenting at the window's start. */
const ENDED_RECENTLY_MS = 5 * 60_000;
/** The audit read is given up after this long: the diagnosis is the answer, not its attribution. */
const AUDIT_READ_MS = 1500;

/** An evidence line naming who ran it, or an unknown saying why that could not be told. */
type Attribution = { evidence: string } | { unknown: string };

/** The report with the defragmentation's runner on its `defrag-in-progress` finding; unchanged without one. */
export async function addDefragRunner(
  report: DiagnosisReport,
  audit: Pick<AuditLog, 'read'>,
  now: number,
  logger: Logger,
): Promise<DiagnosisReport> {
  if (!report.findings.some((f) => f.cause === 'defrag-in-progress')) return report;
  const read = audit.read({ cluster: report.cluster, sinceMs: now - DEFRAG_RUN_LOOKBACK_MS }).then(
    (records): Attribution => ({ evidence: whoRanIt(records, now) }),
    (err: unknown): Attribution => {
      logger.warn({ cluster: report.cluster, err: describeError(err) }, 'could not read the audit trail');
      return { unknown: "who started it: etcd-doctor's audit trail could not be read" };
    },
  );
  const attribution = await withDeadline(
    read,
    AUDIT_READ_MS,
    (): Attribution => ({
      unknown: `who started it: etcd-doctor's audit trail did not answer in ${AUDIT_READ_MS / 1000} s`,
    }),
  );
  const findings = report.findings.map((f) =>
    f.cause === 'defrag-in-progress' ? withRunner(f, attribution) : f,
  );
  return { ...report, findings };
}

function withRunner(f: FindingJson, a: Attribution): FindingJson {
  if ('unknown' in a) return { ...f, unknowns: [...f.unknowns, a.unknown] };
  return { ...f, evidence: [a.evidence, ...f.evidence] };
}

/**
 * Who ran the defragmentation etcd is doing now, from etcd-doctor's audit records of the cluster:
 * its latest Defragment run (not a dry run) that has not ended or ended moments ago, else no one of
 * etcd-doctor's.
 */
function whoRanIt(records: readonly AuditRecord[], now: number): string {
  const runs = new Map<string, { started?: AuditRecord; ended?: AuditRecord }>();
  for (const r of records) {
    if (r.action !== 'defragment') continue;
    const run = runs.get(r.plan) ?? {};
    if (r.event === 'started') run.started = r;
    if (r.event === 'finished' || r.event === 'failed') run.ended = r;
    runs.set(r.plan, run);
  }
  const live = [...runs.values()]
    .flatMap(({ started, ended }) =>
      started && !/\(dry run\)/.test(started.detail) ? [{ started, ended }] : [],
    )
    .filter(({ ended }) => !ended || now - ended.at.getTime() <= ENDED_RECENTLY_MS)
    .sort((a, b) => b.started.at.getTime() - a.started.at.getTime());
  const run = live[0];
  if (!run)
    return `not started by etcd-doctor: its audit trail has no Defragment of this cluster running or ended in the last ${formatAge(ENDED_RECENTLY_MS)}, so it was run elsewhere (a CronJob, an operator, or someone's \`etcdctl defrag\`)`;
  const { started, ended } = run;
  const who =
    started.user === MAINTENANCE_ACTOR
      ? "etcd-doctor's maintenance window"
      : `etcd-doctor's Defragment button, pressed by ${started.user}`;
  const when = `${formatAge(now - started.at.getTime())} ago (${started.at.toISOString().slice(11, 16)} UTC, plan ${started.plan})`;
  const state = ended
    ? `; that run ${ended.event === 'failed' ? 'failed' : 'finished'} ${formatAge(now - ended.at.getTime())} ago`
    : ', still running';
  return `started by ${who} ${when}${state}`;
}
