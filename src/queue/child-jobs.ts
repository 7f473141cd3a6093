import { type Job, type Queue, WaitingChildrenError } from 'bullmq';
import type { JobData } from './job-schemas.js';

/**
 * A job that hands work out to other workers as child jobs (BullMQ parent/child), and is run again
 * once they have all finished.
 */
export interface ChildJobs {
  /**
   * Adds `parts` as this job's children (their ids are fixed, so adding them again after a crash
   * adds nothing), saves `next` as this job's data, and parks the job until the children finish:
   * it throws, and the handler must let that through (see `isParked`). Resolves instead when every
   * child has already finished, and the handler goes straight on to `results()`.
   */
  fanOut(parts: JobData[], next: JobData): Promise<void>;
  /** What the finished children returned, and why the failed ones failed. */
  results(): Promise<{ values: unknown[]; failures: string[] }>;
}

/** The job was parked to wait for its children (ChildJobs.fanOut): not a failure, do not clean up. */
export function isParked(err: unknown): boolean {
  return err instanceof WaitingChildrenError;
}

/** Finished child jobs stay this long (their parent reads their results from its own keys). */
const CHILD_RETENTION_SECONDS = 24 * 3600;

/** The ChildJobs of one running job: its children go on `queue`, its own queue. */
export function childJobs(job: Job, token: string | undefined, queue: Queue): ChildJobs {
  return {
    async fanOut(parts, next) {
      const parent = { id: job.id ?? '', queue: job.queueQualifiedName };
      await queue.addBulk(
        parts.map((data, i) => ({
          name: data.kind,
          data,
          opts: {
            jobId: `${parent.id}-part-${i}`,
            parent,
            // A part that fails for good is recorded, and the parent still runs: its clusters are
            // reported as not checked instead of the whole digest waiting forever.
            ignoreDependencyOnFailure: true,
            attempts: 2,
            backoff: { type: 'fixed', delay: 1000 },
            removeOnComplete: { age: CHILD_RETENTION_SECONDS },
            removeOnFail: { age: CHILD_RETENTION_SECONDS },
          },
        })),
      );
      await job.updateData(next);
      if (await job.moveToWaitingChildren(token ?? '')) throw new WaitingChildrenError();
    },
    async results() {
      const [values, failures] = await Promise.all([
        job.getChildrenValues(),
        job.getIgnoredChildrenFailures(),
      ]);
      return { values: Object.values(values), failures: Object.values(failures) };
    },
  };
}
