import { readFile } from 'node:fs/promises';
import type { Redis } from '../clients/redis.js';
import { createAuditLog } from '../state/audit-log.js';
import type { ChatAdapter } from '../chat/adapter.js';
import type { ConfigFile } from '../config/schema.js';
import { EtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { JobData, RemediateJob } from '../queue/job-schemas.js';
import { createPlanStore } from '../state/plan-store.js';
import { createActionClients, preloadKubernetesModules } from './action-clients.js';
import { createRemediationState } from '../state/remediation-state.js';
import { createRemediationRunner } from './remediation-job.js';
import type { ClickDeps } from './handle-click.js';
import { DEFAULT_REMEDIATION_SETTINGS, type RemediationSettings } from './settings.js';

export interface RemediationOptions {
  redis: Redis;
  prefix: string;
  config: ConfigFile;
  chat: ChatAdapter;
  logger: Logger;
  /** Queues a job (the worker queues a re-run; the bot queues the remediation). */
  enqueue: (data: JobData) => Promise<unknown>;
  /** The env of the composition root: only `tickets.credentialEnv` names are read from it. */
  env?: Record<string, string | undefined>;
  settings?: Partial<RemediationSettings>;
  readFileBuffer?: (path: string) => Promise<Buffer>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const settingsOf = (w: RemediationOptions): RemediationSettings => ({
  ...DEFAULT_REMEDIATION_SETTINGS,
  ...w.settings,
});

function clusterOf(config: ConfigFile, name: string) {
  const found = config.clusters.find((c) => c.name === name);
  if (!found) throw new EtcdDoctorError('cluster_unknown', `cluster "${name}" is not in the config`);
  return found;
}

export interface RemediationFeature {
  /** The worker's `remediate` job handler. */
  jobs: { remediate: (job: RemediateJob) => Promise<unknown> };
  /** The bot's click path dependencies (the bot adds its ClusterAccess). */
  clicks: Omit<ClickDeps, 'clusters'>;
}

/**
 * Remediation buttons: the bot validates a click and queues it (\`clicks\`); a worker runs it
 * (\`jobs.remediate\`). Both sides share the plan store, the per-cluster state and the audit trail.
 */
export function installRemediation(w: RemediationOptions): RemediationFeature {
  // With a cluster that has Kubernetes, its client loads now (in the background), not inside an
  // action's lock; without one, never (~60 MiB of RSS a worker does not need).
  if (w.config.clusters.some((c) => c.kubernetes)) preloadKubernetesModules();
  return { jobs: { remediate: remediationJobHandler(w) }, clicks: clickDeps(w) };
}

function remediationJobHandler(w: RemediationOptions): (job: RemediateJob) => Promise<unknown> {
  const readFileBuffer = w.readFileBuffer ?? ((p: string) => readFile(p));
  return createRemediationRunner({
    chat: w.chat,
    plans: createPlanStore(w.redis, w.prefix),
    state: createRemediationState(w.redis, w.prefix),
    audit: createAuditLog(w.redis, w.prefix),
    cluster: (name) => clusterOf(w.config, name),
    clientsFor: (cluster) =>
      createActionClients(cluster, {
        readFileBuffer,
        env: w.env ?? {},
        rerun: async (name, depth) => {
          await w.enqueue({
            v: 1,
            kind: 'check',
            depth,
            cluster: name,
            channel: cluster.slack?.channel ?? '',
            user: 'etcd-doctor',
            requestedAt: Date.now(),
          });
        },
        space: async (name, thread) => {
          await w.enqueue({
            v: 1,
            kind: 'space',
            cluster: name,
            ...(thread ? { thread } : {}),
            channel: cluster.slack?.channel ?? '',
            user: 'etcd-doctor',
            requestedAt: Date.now(),
          });
        },
      }),
    settings: settingsOf(w),
    logger: w.logger,
    ...(w.now ? { now: w.now } : {}),
    ...(w.sleep ? { sleep: w.sleep } : {}),
  });
}

function clickDeps(w: RemediationOptions): Omit<ClickDeps, 'clusters'> {
  const groupMembers = w.chat.groupMembers?.bind(w.chat);
  return {
    plans: createPlanStore(w.redis, w.prefix),
    state: createRemediationState(w.redis, w.prefix),
    audit: createAuditLog(w.redis, w.prefix),
    enqueue: async (job) => {
      await w.enqueue(job);
    },
    ...(groupMembers ? { groupMembers } : {}),
    settings: settingsOf(w),
    now: w.now ?? Date.now,
  };
}
