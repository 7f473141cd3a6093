import type { ChatAdapter } from '../chat/adapter.js';
import { findCluster } from '../config/load-config.js';
import type { ConfigFile } from '../config/schema.js';
import type { Logger } from '../logger.js';
import type { JobState } from '../state/job-state.js';
import type { SpaceRunOptions } from './measure-space.js';
import type { Feature } from '../queue/job-handlers.js';
import { createSpaceJob } from './space-job.js';

export interface SpaceFeatureOptions {
  chat: ChatAdapter;
  config: ConfigFile;
  logger: Logger;
  state: Pick<JobState, 'root' | 'saveRoot' | 'claimAnswer' | 'markAnswered' | 'releaseAnswer'>;
  workerId: string;
  readFileBuffer: (path: string) => Promise<Buffer>;
  sleep: (ms: number) => Promise<void>;
  progressIntervalMs?: number;
  /** Test knobs over every cluster's `space` settings (a shorter churn window). */
  overrides?: Pick<SpaceRunOptions, 'bytesPerSecond' | 'maxScanSeconds' | 'churnSeconds'>;
}

/**
 * What fills etcd (docs/space.md), on the worker: `space` jobs scan a follower and answer in a thread
 * with the breakdown and the bar chart. The chat side queues them (commands/space.ts, the
 * "What fills it?" button in bot/handle-action.ts).
 */
export function installSpace(o: SpaceFeatureOptions): Feature<'space'> {
  return {
    jobs: {
      space: createSpaceJob({
        chat: o.chat,
        cluster: (name) => findCluster(o.config, name),
        state: o.state,
        workerId: o.workerId,
        logger: o.logger,
        space: { readFileBuffer: o.readFileBuffer },
        // Vega and resvg load with the first chart, not with the worker.
        drawChart: async (report) => (await import('../charts/space-chart.js')).renderSpaceChart(report),
        sleep: o.sleep,
        ...(o.progressIntervalMs ? { progressIntervalMs: o.progressIntervalMs } : {}),
        ...(o.overrides ? { overrides: o.overrides } : {}),
      }),
    },
  };
}
