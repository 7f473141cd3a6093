import type { ChatAdapter } from '../chat/adapter.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import type { AnswerOnce } from '../answer/answer-once.js';
import type { Feature } from '../queue/job-handlers.js';
import type { LifecycleJob } from '../queue/job-schemas.js';
import { type ChatView, textView } from '../report/chat-view.js';
import { readLastKnownStates } from '../history/last-known.js';
import type { HistoryReader } from '../history/since-when-report.js';
import { checkUpgrade } from './gather-upgrade.js';
import { recoveryPlanFor } from './gather-recovery.js';
import { recoveryLines } from './render-recovery.js';
import { upgradeLines } from './render-upgrade.js';

export interface LifecycleFeatureOptions {
  doctor: Pick<Doctor, 'run' | 'cluster'>;
  chat: Pick<ChatAdapter, 'post'>;
  config: ConfigFile;
  /** The worker's way to answer a job once (answer/answer-once.ts). */
  answer: AnswerOnce;
  readFileBuffer: (path: string) => Promise<Buffer>;
  /** The watch's minute history: a recovery plan shows where it last saw a member that is down. */
  history?: HistoryReader;
}

/**
 * etcd's own lifecycle on the worker: `lifecycle` jobs (`/etcd upgrade-check`, `/etcd recover`, the
 * "Show the recovery plan" button) answer once in their channel, or in the thread they came from.
 * Both only read: the recovery plan's steps are for a person to run.
 */
export function installLifecycle(o: LifecycleFeatureOptions): Feature<'lifecycle'> {
  const once = o.answer;
  const history = o.history;
  const deps = {
    doctor: o.doctor,
    config: o.config,
    readFileBuffer: o.readFileBuffer,
    ...(history
      ? { lastKnown: (cluster: string, now: number) => readLastKnownStates(history, cluster, now) }
      : {}),
  };
  return {
    jobs: {
      lifecycle: {
        run: async (job, info) => {
          const view = await viewFor(deps, job, info.signal);
          const thread = job.thread ? { channel: job.channel, ts: job.thread } : undefined;
          await once(info.jobId, () =>
            o.chat.post({ channel: job.channel, ...(thread ? { thread } : {}) }, view),
          );
          return { cluster: job.cluster, task: job.task };
        },
        // A job that failed for good still answers, once, saying what failed and why.
        failed: async (jobId, job, reason) => {
          const what = job.task === 'recover' ? 'The recovery plan' : 'The upgrade check';
          const thread = job.thread ? { channel: job.channel, ts: job.thread } : undefined;
          const view = textView(`${what} of *${job.cluster}* failed: ${reason.slice(0, 300)}`, 'error');
          await once(jobId, () => o.chat.post({ channel: job.channel, ...(thread ? { thread } : {}) }, view));
        },
      },
    },
  };
}

async function viewFor(
  deps: Parameters<typeof checkUpgrade>[0] & Parameters<typeof recoveryPlanFor>[0],
  job: LifecycleJob,
  signal: AbortSignal,
): Promise<ChatView> {
  if (job.task === 'upgrade-check') {
    const out = await checkUpgrade(deps, job.cluster, job.target ?? '', signal);
    if (!out.result)
      return textView(
        `Could not check *${job.cluster}*: no member answered Status (\`/etcd health ${job.cluster}\` says why).`,
        'warning',
      );
    return textView(upgradeLines(out.result), out.result.ready ? 'success' : 'warning');
  }
  const plan = await recoveryPlanFor(deps, job.cluster, signal);
  if (plan.kind !== 'plan') return textView(plan.line, 'info');
  return textView(recoveryLines(plan.plan), 'warning', { title: `Recovery plan for ${job.cluster}` });
}
