import type { ChatAdapter } from '../chat/adapter.js';
import type { Redis } from '../clients/redis.js';
import type { Logger } from '../logger.js';
import type { CheckJob } from '../queue/job-schemas.js';
import { textView } from '../report/chat-view.js';
import type { JobState } from '../state/job-state.js';
import { buttonValue, type PlanStore } from '../state/plan-store.js';

/** What a user sees in place of the answer of a job that Redis lost (a restart without persistence, a failover). */
export const LOST_WITH_REDIS = 'this request was lost with Redis; run it again';

/** A request older than this is no longer looked after: its user has moved on (the job's timeout is 2 min). */
const TRACK_MS = 30 * 60_000;

export interface LostJobWatch {
  /** A check this process queued: if Redis comes back without it, its user is told. */
  track(jobId: string, job: CheckJob): void;
  /** Looks at every tracked job now (also done on every reconnect of `redis`). */
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

/**
 * The bot remembers, in memory, the checks it queued until they are answered. When its Redis
 * connection comes back after being down, each one whose job is gone (no job, no root message, no
 * answer) gets a message in its channel with a button that runs it again, instead of silence.
 */
export function watchLostJobs(deps: LostJobDeps): LostJobWatch {
  const now = deps.now ?? Date.now;
  const tracked = new Map<string, { job: CheckJob; at: number }>();
  let wasDown = false;
  const onClose = () => {
    wasDown = true;
  };
  const sweep = async () => {
    for (const [jobId, { job, at }] of [...tracked]) {
      if (now() - at > TRACK_MS || (await deps.state.isAnswered(jobId))) tracked.delete(jobId);
      else if (!(await deps.exists(jobId)) && !(await deps.state.root(jobId))) {
        tracked.delete(jobId);
        await tellLost(deps, job, now());
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
    track: (jobId, job) => tracked.set(jobId, { job, at: now() }),
    sweep,
    stop() {
      deps.redis.off('close', onClose);
      deps.redis.off('ready', onReady);
      tracked.clear();
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
