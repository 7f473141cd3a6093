import { readFile } from 'node:fs/promises';
import type { Redis } from '../clients/redis.js';
import { createAuditLog } from '../state/audit-log.js';
import type { ChatAdapter } from '../chat/adapter.js';
import type { ClusterConfig, ConfigFile } from '../config/schema.js';
import { EtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import { parseMaintenanceWindow, windowCronPattern } from '../config/maintenance-window.js';
import { describeError } from '../errors.js';
import type { Feature } from '../queue/job-handlers.js';
import type { JobData, RemediateJob } from '../queue/job-schemas.js';
import { createMaintenanceSchedules, type MaintenanceRepeat } from '../queue/maintenance-schedules.js';
import { createPlanStore } from '../state/plan-store.js';
import type { RecordSigner } from '../state/record-signer.js';
import { createActionClients, preloadKubernetesModules } from './action-clients.js';
import { createRemediationState } from '../state/remediation-state.js';
import type { ClusterRunDeps } from './action.js';
import { createMaintenanceDefrag } from './maintenance-defrag.js';
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
  /** Signs and checks plans and remediation jobs (REMEDIATION_SIGNING_KEY). */
  signer: RecordSigner;
  /** The process env of the composition root: only `tickets.credentialEnv` names are read from it. */
  processEnv?: Record<string, string | undefined>;
  settings?: Partial<RemediationSettings>;
  readFileBuffer?: (path: string) => Promise<Buffer>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Maintenance windows are checked every this many ms instead of when each opens (tests, demos). */
  maintenanceEveryMs?: number;
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

export interface RemediationFeature extends Feature<'remediate'> {
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
  return { jobs: { remediate: { run: remediationJobHandler(w) } }, clicks: clickDeps(w) };
}

export interface MaintenanceFeature extends Feature<'maintenance'> {
  /** Upserts a scheduler per cluster with a defragmentation window and removes the others; not awaited at startup. */
  reconcile(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Maintenance windows (the worker's): each cluster's `maintenance.defrag.window` gets a BullMQ job
 * scheduler firing when it opens; the job defragments with the button's guards (maintenance-defrag.ts).
 */
export function installMaintenance(w: RemediationOptions): MaintenanceFeature {
  const schedules = createMaintenanceSchedules({ connection: w.redis, prefix: w.prefix });
  const run = createMaintenanceDefrag({
    ...clusterRunDeps(w),
    now: w.now ?? Date.now,
    sleep: w.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms))),
  });
  return {
    jobs: { maintenance: { run: (job) => run(job) } },
    async reconcile() {
      const windows = maintenanceWindows(w.config, w.maintenanceEveryMs);
      try {
        const { removed } = await schedules.reconcile(windows);
        if (windows.length || removed.length)
          w.logger.info({ windows: windows.map((x) => x.cluster), removed }, 'maintenance schedulers set');
      } catch (err) {
        w.logger.warn({ err: describeError(err) }, 'could not set the maintenance schedulers');
      }
    },
    close: () => schedules.close(),
  };
}

function maintenanceWindows(
  config: ConfigFile,
  everyMs: number | undefined,
): Array<{ cluster: string; repeat: MaintenanceRepeat }> {
  return config.clusters.flatMap((c) => {
    const text = c.maintenance?.defrag?.window;
    const parsed = text ? parseMaintenanceWindow(text) : undefined;
    if (!parsed?.ok) return [];
    return [
      { cluster: c.name, repeat: everyMs ? { everyMs } : { pattern: windowCronPattern(parsed.window) } },
    ];
  });
}

/** What every run on a cluster is given, a button's or a maintenance window's. */
function clusterRunDeps(w: RemediationOptions): ClusterRunDeps {
  return {
    chat: w.chat,
    state: createRemediationState(w.redis, w.prefix),
    audit: createAuditLog(w.redis, w.prefix),
    cluster: (name) => clusterOf(w.config, name),
    clientsFor: (cluster) => clientsFor(w, cluster),
    settings: settingsOf(w),
    logger: w.logger,
  };
}

function clientsFor(w: RemediationOptions, cluster: ClusterConfig) {
  return createActionClients(cluster, {
    readFileBuffer: w.readFileBuffer ?? ((p: string) => readFile(p)),
    processEnv: w.processEnv ?? {},
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
  });
}

function remediationJobHandler(w: RemediationOptions): (job: RemediateJob) => Promise<unknown> {
  return createRemediationRunner({
    ...clusterRunDeps(w),
    plans: createPlanStore(w.redis, w.prefix, w.signer),
    signer: w.signer,
    ...(w.now ? { now: w.now } : {}),
    ...(w.sleep ? { sleep: w.sleep } : {}),
  });
}

function clickDeps(w: RemediationOptions): Omit<ClickDeps, 'clusters'> {
  const groupMembers = w.chat.groupMembers?.bind(w.chat);
  return {
    plans: createPlanStore(w.redis, w.prefix, w.signer),
    signer: w.signer,
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
