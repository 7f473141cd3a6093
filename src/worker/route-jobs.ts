import type { JobHandlers } from '../queue/job-worker.js';
import type { AlertJob, DigestJob, RemediateJob } from '../queue/job-schemas.js';

export interface ExtraJobHandlers {
  digest?: (job: DigestJob, info: { jobId: string; attempt: number }) => Promise<unknown>;
  alert?: (job: AlertJob, info: { jobId: string; attempt: number }) => Promise<unknown>;
  /** Remediation buttons (src/remediation/run-job.ts). */
  remediate?: (job: RemediateJob, info: { jobId: string; attempt: number }) => Promise<unknown>;
}

/** Digest and alert jobs go to their own handlers; every other kind to `base`. */
export function routeJobs(base: JobHandlers, extra: ExtraJobHandlers): JobHandlers {
  return {
    run(data, info) {
      if (data.kind === 'digest' && extra.digest) return extra.digest(data, info);
      if (data.kind === 'alert' && extra.alert) return extra.alert(data, info);
      if (data.kind === 'remediate' && extra.remediate) return extra.remediate(data, info);
      return base.run(data, info);
    },
    failed: (jobId, data, reason) => base.failed(jobId, data, reason),
  };
}
