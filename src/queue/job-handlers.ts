import type { Logger } from '../logger.js';
import type { ChildJobs } from './child-jobs.js';
import type { JobData } from './job-schemas.js';

/** What a job worker runs: the answer to each job, and the answer to a job that failed for good. */
export interface JobHandlers {
  /**
   * `signal` aborts when this attempt is over for the queue (timed out, or failed): a run still
   * going after that is abandoned and must not touch the chat any more.
   */
  run(
    data: JobData,
    info: { jobId: string; attempt: number; signal: AbortSignal; logger?: Logger; children?: ChildJobs },
  ): Promise<unknown>;
  /**
   * The job failed for good (unrecoverable, out of tries, or stalled too often). Called in every
   * worker process that sees the event, so it must answer at most once (JobState.claimAnswer).
   */
  failed(jobId: string, data: JobData | undefined, reason: string): Promise<void>;
}
