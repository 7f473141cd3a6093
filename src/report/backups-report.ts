import type { BackupJobJson, BackupsJson, SnapshotJson } from '../contracts/report-json.js';
import { ageHours, behindRevisions, clusterRevision, newestGood } from '../diagnosis/support/backups.js';
import type { BackupJob, Evidence, SnapshotCheck } from '../probes/evidence.js';

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
const hours = (h: number) => Math.round(h * 100) / 100;

/** The `backups` JSON of a run that read them (report-json.ts BackupsJson); undefined otherwise. */
export function backupsJson(evidence: Evidence): BackupsJson | undefined {
  const b = evidence.backups;
  if (!b) return undefined;
  const now = evidence.collectedAt;
  const current = clusterRevision(evidence);
  const data = b.snapshots?.ok ? b.snapshots.data : undefined;
  const list = data?.snapshots ?? [];
  const good = newestGood(list);
  const snapshot = (s: SnapshotCheck): SnapshotJson => ({
    file: s.file,
    modifiedAt: new Date(s.modifiedAt).toISOString(),
    ageHours: hours(ageHours(s.modifiedAt, now)),
    sizeBytes: s.sizeBytes,
    state: s.state,
    revision: s.revision,
    hashOk: s.hashOk,
    behindRevisions: behindRevisions(s, current),
    error: s.error,
  });
  return {
    cluster: evidence.cluster,
    dir: b.dir ?? null,
    pattern: b.pattern,
    maxAgeHours: b.maxAgeHours,
    checkedAt: new Date(now).toISOString(),
    clusterRevision: current,
    matched: data ? data.matched : null,
    newestGood: good ? snapshot(good) : null,
    snapshots: list.map(snapshot),
    error: b.snapshots && !b.snapshots.ok ? b.snapshots.failure.message : null,
    jobs: b.jobs?.ok ? b.jobs.data.map(jobJson) : null,
    jobsError: b.jobs && !b.jobs.ok ? b.jobs.failure.message : null,
  };
}

function jobJson(j: BackupJob): BackupJobJson {
  return {
    kind: j.kind,
    namespace: j.namespace,
    name: j.name,
    schedule: j.schedule,
    suspended: j.suspended,
    lastSuccessfulAt: iso(j.lastSuccessfulAt),
    lastScheduleAt: iso(j.lastScheduleAt),
    lastRun: j.lastRun
      ? {
          name: j.lastRun.name,
          state: j.lastRun.state,
          at: iso(j.lastRun.at),
          reason: j.lastRun.reason ?? null,
        }
      : null,
  };
}
