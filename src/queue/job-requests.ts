import type { CheckDepth } from '../contracts/check-depth.js';
import type { MessageRef } from '../chat/adapter.js';
import type { JobQueue } from './job-queue.js';
import type { AnalyzeJob, CheckJob } from './job-schemas.js';
import type { JobState } from '../state/job-state.js';
import { withDeadline } from '../timing.js';

/** A Redis read the chat side waits for while a user waits: at most this long (Slack allows 3 s in all). */
export const CHAT_REDIS_DEADLINE_MS = 1500;

export type EnqueueReply =
  | { joined: false; jobId: string }
  /** `thread` is the running job's root message, once its worker has posted it. */
  | { joined: true; jobId: string; thread: MessageRef | undefined };

interface Requester {
  channel: string;
  user: string;
}

/** What the chat side may ask of the workers. Throws `queue_unavailable` when Redis does not answer in time. */
export interface JobRequests {
  check(req: Requester & { depth: CheckDepth; cluster: string }): Promise<EnqueueReply>;
  status(req: Requester & { clusters: string[] }): Promise<EnqueueReply>;
  /** What fills a cluster's etcd (src/space/), answered in `thread` when given (the button's diagnosis). */
  space(req: Requester & { cluster: string; thread?: string }): Promise<EnqueueReply>;
  /** `/etcd backups <cluster>`: the cluster's snapshots, each read, answered in the channel. */
  backups(req: Requester & { cluster: string }): Promise<EnqueueReply>;
  /** `/etcd upgrade-check` and `/etcd recover` (src/lifecycle/), answered in the channel or `thread`. */
  lifecycle(
    req: Requester & { task: 'upgrade-check' | 'recover'; cluster: string; target?: string; thread?: string },
  ): Promise<EnqueueReply>;
  /** Files to analyse offline (src/offline/); counted in `outstanding` like the others. */
  analyze(job: AnalyzeJob): Promise<EnqueueReply>;
  /** Jobs this process queued that have not answered yet (the shell waits for them at end of input). */
  outstanding(): Promise<string[]>;
}

export function createJobRequests(
  queue: JobQueue,
  state: Pick<JobState, 'root' | 'isAnswered'>,
  now: () => number = Date.now,
  /** Told of each check that this process queued (not joined), to answer it if Redis loses it. */
  onQueued: (jobId: string, job: CheckJob) => void = () => undefined,
): JobRequests {
  const asked = new Set<string>();
  const reply = async (outcome: { jobId: string; joined: boolean }): Promise<EnqueueReply> => {
    asked.add(outcome.jobId);
    if (!outcome.joined) return { joined: false, jobId: outcome.jobId };
    // A Redis hiccup here only costs the link, not the answer.
    const thread = await withDeadline(state.root(outcome.jobId), CHAT_REDIS_DEADLINE_MS, () => undefined);
    return { joined: true, jobId: outcome.jobId, thread };
  };
  return {
    async check(req) {
      const data = { v: 1 as const, kind: 'check' as const, ...req, requestedAt: now() };
      const outcome = await queue.enqueue(data);
      if (!outcome.joined) onQueued(outcome.jobId, data);
      return reply(outcome);
    },
    async status(req) {
      const data = { v: 1 as const, kind: 'status' as const, ...req, requestedAt: now() };
      return reply(await queue.enqueue(data));
    },
    async space(req) {
      const data = { v: 1 as const, kind: 'space' as const, ...req, requestedAt: now() };
      return reply(await queue.enqueue(data));
    },
    async backups(req) {
      const data = { v: 1 as const, kind: 'backups' as const, ...req, requestedAt: now() };
      return reply(await queue.enqueue(data));
    },
    async lifecycle(req) {
      const data = { v: 1 as const, kind: 'lifecycle' as const, ...req, requestedAt: now() };
      return reply(await queue.enqueue(data));
    },
    async analyze(job) {
      return reply(await queue.enqueue(job));
    },
    async outstanding() {
      for (const jobId of [...asked]) {
        if (await state.isAnswered(jobId)) asked.delete(jobId);
      }
      return [...asked];
    },
  };
}
