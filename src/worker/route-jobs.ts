import type { ChildJobs } from '../queue/child-jobs.js';
import type { FailureHow, JobHandlers } from '../queue/job-handlers.js';
import type {
  AlertJob,
  AnalyzeJob,
  DigestJob,
  DigestPartJob,
  MaintenanceJob,
  RemediateJob,
  SpaceJob,
  WatchJob,
} from '../queue/job-schemas.js';

export interface ExtraJobHandlers {
  digest?: (
    job: DigestJob,
    info: { jobId: string; attempt: number; children?: ChildJobs },
  ) => Promise<unknown>;
  /** One share of a large digest's clusters (a child job of the digest). */
  digestPart?: (job: DigestPartJob) => Promise<unknown>;
  alert?: (job: AlertJob, info: { jobId: string; attempt: number }) => Promise<unknown>;
  /** Remediation buttons (src/remediation/remediation-job.ts). */
  remediate?: (job: RemediateJob, info: { jobId: string; attempt: number }) => Promise<unknown>;
  /** A cluster's maintenance window (src/remediation/maintenance-defrag.ts). */
  maintenance?: (job: MaintenanceJob, info: { jobId: string; attempt: number }) => Promise<unknown>;
  /** A watched cluster's scheduled check (src/watch/). */
  watch?: (job: WatchJob, info: { jobId: string; attempt: number }) => Promise<unknown>;
  /** What fills a cluster's etcd (src/space/install.ts), and its answer when it failed for good. */
  space?:
    | {
        run(job: SpaceJob, info: { jobId: string; attempt: number; signal: AbortSignal }): Promise<unknown>;
        failed(jobId: string, job: SpaceJob, reason: string): Promise<void>;
      }
    | undefined;
  /** Offline analysis of shared files (src/offline/install.ts), and its answer when it failed for good. */
  analyze?:
    | {
        run(job: AnalyzeJob, info: { jobId: string; attempt: number; signal: AbortSignal }): Promise<unknown>;
        failed(jobId: string, job: AnalyzeJob, reason: string, how?: FailureHow): Promise<void>;
      }
    | undefined;
}

/** Digest and alert jobs go to their own handlers; every other kind to `base`. */
export function routeJobs(base: JobHandlers, extra: ExtraJobHandlers): JobHandlers {
  return {
    run(data, info) {
      if (data.kind === 'digest' && extra.digest) return extra.digest(data, info);
      if (data.kind === 'digest-part' && extra.digestPart) return extra.digestPart(data);
      if (data.kind === 'alert' && extra.alert) return extra.alert(data, info);
      if (data.kind === 'remediate' && extra.remediate) return extra.remediate(data, info);
      if (data.kind === 'watch' && extra.watch) return extra.watch(data, info);
      if (data.kind === 'maintenance' && extra.maintenance) return extra.maintenance(data, info);
      if (data.kind === 'analyze' && extra.analyze) return extra.analyze.run(data, info);
      if (data.kind === 'space' && extra.space) return extra.space.run(data, info);
      return base.run(data, info);
    },
    failed: (jobId, data, reason, how) => {
      if (data?.kind === 'analyze' && extra.analyze) return extra.analyze.failed(jobId, data, reason, how);
      if (data?.kind === 'space' && extra.space) return extra.space.failed(jobId, data, reason);
      return base.failed(jobId, data, reason, how);
    },
  };
}
