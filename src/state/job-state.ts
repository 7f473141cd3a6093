import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { MessageRef } from '../chat/adapter.js';
import type { VerdictView } from '../report/chat-view.js';

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
  acquireClusterLock(cluster: string, owner: string, ttlMs: number): Promise<boolean>;
  renewClusterLock(cluster: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseClusterLock(cluster: string, owner: string): Promise<void>;
}

const messageRefSchema = z.object({
  channel: z.string().min(1),
  ts: z.string().min(1),
  link: z.string().optional(),
});

const verdictSchema = z.strictObject({
  kind: z.literal('verdict'),
  depth: z.enum(['health', 'diagnose']),
  cluster: z.string().min(1),
  status: z.enum(['healthy', 'degraded', 'critical', 'unknown', 'failed']),
  headline: z.string(),
});

/** Job state outlives the job's own retention: a week covers any thread someone still reads. */
const STATE_TTL_SECONDS = 7 * 24 * 3600;

// Claim unless answered: KEYS[1] answered, KEYS[2] claim; ARGV owner, lease ms.
const CLAIM = `if redis.call('EXISTS', KEYS[1]) == 1 then return 'answered' end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'claimed' end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('PEXPIRE', KEYS[2], ARGV[2]) return 'claimed' end
return 'busy'`;
// Delete or extend a key only while we own it.
const DEL_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const PEXPIRE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

export function createJobState(redis: Redis, prefix: string): JobState {
  const key = (...parts: string[]) => [prefix, 'state', ...parts].join(':');
  return {
    async root(jobId) {
      const raw = await redis.get(key('root', jobId));
      if (raw === null) return undefined;
      const parsed = messageRefSchema.safeParse(JSON.parse(raw));
      return parsed.success ? stripUndefined(parsed.data) : undefined;
    },
    async saveRoot(jobId, ref) {
      await redis.set(key('root', jobId), JSON.stringify(ref), 'EX', STATE_TTL_SECONDS);
    },
    async claimAnswer(jobId, owner, leaseMs) {
      const result = await redis.eval(
        CLAIM,
        2,
        key('answered', jobId),
        key('answer-claim', jobId),
        owner,
        String(leaseMs),
      );
      return result === 'answered' || result === 'claimed' ? result : 'busy';
    },
    async markAnswered(jobId, ref) {
      await redis
        .multi()
        .set(key('answered', jobId), JSON.stringify(ref), 'EX', STATE_TTL_SECONDS)
        .del(key('answer-claim', jobId))
        .exec();
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
      await redis.eval(DEL_IF_OWNER, 1, key('answer-claim', jobId), owner);
    },
    async acquireClusterLock(cluster, owner, ttlMs) {
      const lock = key('cluster-lock', cluster);
      if ((await redis.set(lock, owner, 'PX', ttlMs, 'NX')) === 'OK') return true;
      // Re-entrant: a job recovered after a stall may find its own lock.
      return (await redis.eval(PEXPIRE_IF_OWNER, 1, lock, owner, String(ttlMs))) === 1;
    },
    async renewClusterLock(cluster, owner, ttlMs) {
      return (
        (await redis.eval(PEXPIRE_IF_OWNER, 1, key('cluster-lock', cluster), owner, String(ttlMs))) === 1
      );
    },
    async releaseClusterLock(cluster, owner) {
      await redis.eval(DEL_IF_OWNER, 1, key('cluster-lock', cluster), owner);
    },
  };
}

function stripUndefined(ref: { channel: string; ts: string; link?: string | undefined }): MessageRef {
  return ref.link === undefined
    ? { channel: ref.channel, ts: ref.ts }
    : { channel: ref.channel, ts: ref.ts, link: ref.link };
}
