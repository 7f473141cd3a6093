import { type Job, Queue } from 'bullmq';
import { REDIS_URL } from './redis-prefix.js';

/**
 * Where BullMQ says a job ended, for tests that check that nothing else happened: wait for the
 * job's final state first, then assert on what is (and is not) in the chat.
 */

const POLL_MS = 50;
/** States of a job that has not finished yet (a parent waiting for its children included). */
const UNFINISHED = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/** A BullMQ view of the `jobs` queue under `prefix`, for reading job states; close it after. */
export function inspectQueue(prefix: string, name = 'jobs'): Queue {
  return new Queue(name, { connection: { url: REDIS_URL }, prefix });
}

/** Resolves with the job once it is `state` (its return value or failure reason is then final). */
export async function waitForJobState(
  queue: Queue,
  jobId: string,
  state: 'completed' | 'failed',
  timeoutMs: number,
): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  let seen = 'unknown';
  for (;;) {
    seen = await queue.getJobState(jobId);
    // Read after the state: the job's return value or failure reason is written with it, not before.
    const job = seen === state ? await queue.getJob(jobId) : undefined;
    if (job) return job;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`job ${jobId} is ${seen}, expected ${state} within ${timeoutMs} ms`);
}

/**
 * Resolves with the finished jobs once the queue holds at least `finished` of them (completed or
 * failed) and none that is still to run: every job anyone queued has ended.
 */
export async function waitForQueueSettled(
  queue: Queue,
  finished: number,
  timeoutMs: number,
): Promise<{ completed: Job[]; failed: Job[] }> {
  const deadline = Date.now() + timeoutMs;
  let counts: Record<string, number> = {};
  for (;;) {
    counts = await queue.getJobCounts(...UNFINISHED, 'completed', 'failed');
    const open = UNFINISHED.reduce((n, s) => n + (counts[s] ?? 0), 0);
    if (open === 0 && (counts.completed ?? 0) + (counts.failed ?? 0) >= finished)
      return { completed: await queue.getJobs(['completed']), failed: await queue.getJobs(['failed']) };
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(
    `queue not settled with ${finished} finished jobs in ${timeoutMs} ms: ${JSON.stringify(counts)}`,
  );
}
