import type { Logger } from '../logger.js';
import type { ChildJobs } from './child-jobs.js';
import type { JobData } from './job-schemas.js';

/** How a job failed for good, beyond its reason. */
export interface FailureHow {
  /** Its worker stopped renewing the job's lock (the process died: killed, out of memory) and the job is not run again. */
  workerDied: boolean;
}

/** What a job worker runs: the answer to each job, and the answer to a job that failed for good. */
export interface JobHandlers {
  /**
   * `signal` aborts when this attempt is over for the queue (timed out, or failed): a run still
   * going after that is abandoned and must not touch the chat any more, except to put back the
   * verdict another run saved over a late progress edit of its own.
   */
  run(
    data: JobData,
    info: {
      jobId: string;
      attempt: number;
      signal: AbortSignal;
      logger?: Logger;
      children?: ChildJobs;
      /**
       * Call once the answer is out: an equal request after this starts a new run instead of joining
       * this one while it settles its root message and posts its chart (a "Re-run" pressed on the
       * answer must re-run).
       */
      answered?: () => Promise<void>;
    },
  ): Promise<unknown>;
  /**
   * The job failed for good (unrecoverable, out of tries, or stalled too often). Called in every
   * worker process that sees the event, so it must answer at most once (JobState.claimAnswer).
   */
  failed(jobId: string, data: JobData | undefined, reason: string, how?: FailureHow): Promise<void>;
}
