import { CHECK_DEPTHS } from '../contracts/check-depth.js';
import { type Redis, replicated } from '../clients/redis.js';
import { z } from 'zod';
import type { MessageRef } from '../chat/adapter.js';
import type { VerdictView } from '../report/chat-view.js';
import { createOwnedLocks, type HeldLock, type HoldOptions } from './owned-lock.js';

/**
 * What jobs remember in Redis, by job id: the root message a job updates in place (so a retried or
 * recovered job keeps updating the same message, and a second request can link to it), whether the
 * job has answered (so there is exactly one answer), and a lock per cluster (one job per cluster at a time).
 */
export interface JobState {
  root(jobId: string): Promise<MessageRef | undefined>;
  saveRoot(jobId: string, ref: MessageRef): Promise<void>;
  /**
   * `claimed`: this caller may post the answer and must then call markAnswered or releaseAnswer.
   * `answered`: someone already did. `busy`: another worker holds the claim right now.
   */
  claimAnswer(jobId: string, owner: string, leaseMs: number): Promise<'claimed' | 'answered' | 'busy'>;
  markAnswered(jobId: string, ref: MessageRef): Promise<void>;
  /**
   * The verdict the answer stands for. Every run of the job that reaches its end sets the root
   * message to this one, so a late run (after a stall) never leaves its own progress showing.
   */
  saveVerdict(jobId: string, view: VerdictView): Promise<void>;
  verdict(jobId: string): Promise<VerdictView | undefined>;
  isAnswered(jobId: string): Promise<boolean>;
  releaseAnswer(jobId: string, owner: string): Promise<void>;
  /** One job per cluster at a time: held and renewed until released (src/state/owned-lock.ts). */
  holdClusterLock(cluster: string, owner: string, opts: HoldOptions): Promise<HeldLock | undefined>;
}

const messageRefSchema = z.object({
  channel: z.string().min(1),
  ts: z.string().min(1),
  link: z.string().optional(),
});

const verdictSchema = z.strictObject({
  kind: z.literal('verdict'),
  depth: z.enum(CHECK_DEPTHS),
  cluster: z.string().min(1),
  status: z.enum(['healthy', 'degraded', 'critical', 'unknown', 'failed']),
  headline: z.string(),
});

/** Job state outlives the job's own retention: a week covers any thread someone still reads. */
const STATE_TTL_SECONDS = 7 * 24 * 3600;

export function createJobState(redis: Redis, prefix: string): JobState {
  const key = (...parts: string[]) => [prefix, 'state', ...parts].join(':');
  const locks = createOwnedLocks(redis);
  return {
    async root(jobId) {
      const raw = await redis.get(key('root', jobId));
      if (raw === null) return undefined;
      const parsed = messageRefSchema.safeParse(JSON.parse(raw));
      return parsed.success ? stripUndefined(parsed.data) : undefined;
    },
    async saveRoot(jobId, ref) {
      await redis.set(key('root', jobId), JSON.stringify(ref), 'EX', STATE_TTL_SECONDS);
      await replicated(redis, key('root', jobId));
    },
    async claimAnswer(jobId, owner, leaseMs) {
      // Re-entrant (a retry of the same claim), and refused once the answer is recorded.
      const result = await locks.acquire(key('answer-claim', jobId), owner, leaseMs, {
        reentrant: true,
        unlessKey: key('answered', jobId),
      });
      return result === 'blocked' ? 'answered' : result === 'acquired' ? 'claimed' : 'busy';
    },
    async markAnswered(jobId, ref) {
      await redis
        .multi()
        .set(key('answered', jobId), JSON.stringify(ref), 'EX', STATE_TTL_SECONDS)
        .del(key('answer-claim', jobId))
        .exec();
      await replicated(redis, key('answered', jobId));
    },
    async saveVerdict(jobId, view) {
      await redis.set(key('verdict', jobId), JSON.stringify(view), 'EX', STATE_TTL_SECONDS);
    },
    async verdict(jobId) {
      const raw = await redis.get(key('verdict', jobId));
      const parsed = raw === null ? undefined : verdictSchema.safeParse(JSON.parse(raw));
      return parsed?.success ? parsed.data : undefined;
    },
    async isAnswered(jobId) {
      return (await redis.exists(key('answered', jobId))) === 1;
    },
    async releaseAnswer(jobId, owner) {
      await locks.release(key('answer-claim', jobId), owner);
    },
    async holdClusterLock(cluster, owner, opts) {
      // Re-entrant: a job recovered after a stall may find its own lock.
      return locks.hold(key('cluster-lock', cluster), owner, { ...opts, reentrant: true });
    },
  };
}

function stripUndefined(ref: { channel: string; ts: string; link?: string | undefined }): MessageRef {
  return ref.link === undefined
    ? { channel: ref.channel, ts: ref.ts }
    : { channel: ref.channel, ts: ref.ts, link: ref.link };
}
