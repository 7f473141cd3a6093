import type { ChatAdapter } from '../chat/adapter.js';
import type { Redis } from '../clients/redis.js';
import type { Logger } from '../logger.js';
import type { JobPhase } from '../queue/job-phases.js';
import type { CheckJob } from '../queue/job-schemas.js';
import { textView } from '../report/chat-view.js';
import type { JobState } from '../state/job-state.js';
import { buttonValue, type PlanStore } from '../state/plan-store.js';

/** What a user sees in place of the answer of a job that Redis lost (a restart without persistence, a failover). */
export const LOST_WITH_REDIS = 'this request was lost with Redis; run it again';

/** A request older than this is no longer looked after: its user has moved on (the job's timeout is 2 min). */
const TRACK_MS = 30 * 60_000;
/** Phases of jobs not tracked (yet): an event can arrive before `track` (a fast worker). */
const EARLY_PHASES_KEPT = 1000;

export interface LostJobWatch {
  /** A check this process queued: if Redis comes back without it before a worker took it, its user is told. */
  track(jobId: string, job: CheckJob): void;
  /** What the queue's event stream says of a job (src/queue/job-phases.ts). */
  phase(jobId: string, phase: JobPhase): void;
  /** Looks at every tracked job now (also done on every reconnect of `redis` after it was down). */
  sweep(): Promise<void>;
  stop(): void;
}

export interface LostJobDeps {
  redis: Redis;
  exists: (jobId: string) => Promise<boolean>;
  state: Pick<JobState, 'root' | 'isAnswered'>;
  plans: Pick<PlanStore, 'save'>;
  chat: Pick<ChatAdapter, 'post'>;
  logger: Logger;
  now?: () => number;
}

interface Tracked {
  job: CheckJob;
  at: number;
  phase: Exclude<JobPhase, 'ended'>;
}

/**
 * The bot remembers, in memory, the checks it queued until they end, and where each one is (the
 * queue's events). When its Redis connection comes back after being down, each one that was still
 * waiting for a worker and is gone (no job, no root message, no answer) gets a message in its
 * channel with a button that runs it again, instead of silence.
 *
 * Only jobs no worker had taken: a Redis that restarts without persistence also forgets the
 * answered markers, so "gone from Redis" cannot tell a lost job from one answered before the
 * outage; the events can. A taken job is in its worker's hands, which answers it into the new
 * Redis (answer-once claims there). Known gap: a job whose worker dies together with Redis.
 */
export function watchLostJobs(deps: LostJobDeps): LostJobWatch {
  const now = deps.now ?? Date.now;
  const tracked = new Map<string, Tracked>();
  const early = new Map<string, JobPhase>();
  let wasDown = false;
  const onClose = () => {
    wasDown = true;
  };
  const isLost = async (jobId: string, entry: Tracked): Promise<boolean> =>
    entry.phase === 'queued' &&
    !(await deps.exists(jobId)) &&
    !(await deps.state.isAnswered(jobId)) &&
    !(await deps.state.root(jobId));
  const sweep = async () => {
    for (const [jobId, entry] of [...tracked]) {
      if (now() - entry.at > TRACK_MS) tracked.delete(jobId);
      else if (await isLost(jobId, entry)) {
        tracked.delete(jobId);
        await tellLost(deps, entry.job, now());
      }
    }
  };
  const onReady = () => {
    if (!wasDown) return;
    wasDown = false;
    sweep().catch((err: Error) =>
      deps.logger.warn({ err: err.message }, 'could not look for jobs lost with Redis'),
    );
  };
  deps.redis.on('close', onClose);
  deps.redis.on('ready', onReady);
  return {
    track(jobId, job) {
      const seen = early.get(jobId);
      early.delete(jobId);
      if (seen !== 'ended') tracked.set(jobId, { job, at: now(), phase: seen ?? 'queued' });
    },
    phase(jobId, phase) {
      const entry = tracked.get(jobId);
      if (!entry) {
        early.set(jobId, phase);
        if (early.size > EARLY_PHASES_KEPT) early.delete(early.keys().next().value as string);
      } else if (phase === 'ended') tracked.delete(jobId);
      else entry.phase = phase;
    },
    sweep,
    stop() {
      deps.redis.off('close', onClose);
      deps.redis.off('ready', onReady);
      tracked.clear();
      early.clear();
    },
  };
}

async function tellLost(deps: LostJobDeps, job: CheckJob, at: number): Promise<void> {
  const label = job.depth === 'health' ? 'Check again' : 'Run again';
  const id = await deps.plans.save({
    action: 'rerun',
    cluster: job.cluster,
    args: { depth: job.depth },
    label,
    channel: job.channel,
    createdAt: at,
  });
  const button = {
    action: 'rerun' as const,
    label,
    value: buttonValue(id),
    finding: null,
    style: 'primary' as const,
  };
  await deps.chat.post(
    { channel: job.channel },
    textView(`your ${job.depth} of ${job.cluster}: ${LOST_WITH_REDIS}.`, 'warning', {
      buttons: [button],
      actor: job.user,
    }),
  );
}
