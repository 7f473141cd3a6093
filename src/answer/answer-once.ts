import { randomUUID } from 'node:crypto';
import type { MessageRef } from '../chat/adapter.js';
import type { JobState } from '../state/job-state.js';

export interface AnswerOnceOptions {
  state: Pick<JobState, 'claimAnswer' | 'markAnswered' | 'releaseAnswer'>;
  /** Names this process in claims. */
  workerId: string;
  /** How long a claim holds while posting; covers Slack's Retry-After waits. */
  leaseMs: number;
  /** How long to wait for another worker that holds the claim, before giving up for now. */
  waitMs: number;
  sleep: (ms: number) => Promise<void>;
}

const POLL_MS = 250;

/**
 * Posts a job's answer exactly once across workers, retries and crashes: claim in Redis (SET NX with
 * a lease), post, record the message. A worker that dies after claiming lets the lease expire, and
 * the recovered job answers. Resolves false when the job had already answered.
 */
export async function answerOnce(
  jobId: string,
  deliver: () => Promise<MessageRef>,
  opts: AnswerOnceOptions,
): Promise<boolean> {
  const owner = `${opts.workerId}:${randomUUID()}`;
  const polls = Math.max(1, Math.ceil(opts.waitMs / POLL_MS));
  for (let i = 0; i < polls; i += 1) {
    const claim = await opts.state.claimAnswer(jobId, owner, opts.leaseMs);
    if (claim === 'answered') return false;
    if (claim === 'claimed') {
      let ref: MessageRef;
      try {
        ref = await deliver();
      } catch (err) {
        await opts.state.releaseAnswer(jobId, owner).catch(() => undefined);
        throw err;
      }
      await opts.state.markAnswered(jobId, ref);
      return true;
    }
    await opts.sleep(POLL_MS);
  }
  // Transient on purpose: the queue tries again later, by when the other worker has answered or died.
  throw new Error(`another worker is still answering job ${jobId}`);
}

/** How long a job's claim on its answer holds while it is delivered. */
const ANSWER_LEASE_MS = 120_000;

/** A job's answer, delivered once: false when the job had already answered. */
export type AnswerOnce = (jobId: string, deliver: () => Promise<MessageRef>) => Promise<boolean>;

/** A job runner's way to answer once: `answerOnce` with its claim settings (ANSWER_LEASE_MS). */
export function answerer(
  deps: Pick<AnswerOnceOptions, 'state' | 'workerId'>,
  sleep: (ms: number) => Promise<void>,
): AnswerOnce {
  return (jobId, deliver) =>
    answerOnce(jobId, deliver, {
      state: deps.state,
      workerId: deps.workerId,
      leaseMs: ANSWER_LEASE_MS,
      waitMs: 5000,
      sleep,
    });
}
