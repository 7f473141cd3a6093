import { type Logger, withFields } from '../logger.js';
import type { ChildJobs } from './child-jobs.js';
import type { JobData } from './job-schemas.js';

// The one place that says, per job kind, how the queue treats a job (its lock, its time, its
// queue, its deduplication) and which feature's handler answers it. Features register their
// handlers into a JobKindHandlers record (roles/worker.ts builds it; a kind without a handler does
// not compile); nothing else in src/ branches on a job's kind (scripts/check-structure.mjs).

export type JobKind = JobData['kind'];
/** The payload of one kind of job. */
export type JobOf<K extends JobKind> = Extract<JobData, { kind: K }>;

/** How a job failed for good, beyond its reason. */
export interface FailureHow {
  /** Its worker stopped renewing the job's lock (the process died: killed, out of memory) and the job is not run again. */
  workerDied: boolean;
}

/** What a handler is told about the attempt it runs. */
export interface RunInfo {
  jobId: string;
  attempt: number;
  /**
   * Aborts when this attempt is over for the queue (timed out, or failed): a run still going after
   * that is abandoned and must not touch the chat any more, except to put back the verdict another
   * run saved over a late progress edit of its own.
   */
  signal: AbortSignal;
  logger?: Logger;
  children?: ChildJobs;
  /**
   * Call once the answer is out: an equal request after this starts a new run instead of joining
   * this one while it settles its root message and posts its chart (a "Re-run" pressed on the
   * answer must re-run).
   */
  answered?: () => Promise<void>;
}

/** One feature's answer to one kind of job, and (optionally) its answer when that job failed for good. */
export interface KindHandler<J extends JobData> {
  run(job: J, info: RunInfo): Promise<unknown>;
  /** Called in every worker process that sees the failure, so it must answer at most once (JobState.claimAnswer). */
  failed?(jobId: string, job: J, reason: string, how?: FailureHow): Promise<void>;
}

/** The handler record: one handler per job kind, every kind. */
export type JobKindHandlers = { [K in JobKind]: KindHandler<JobOf<K>> };

/**
 * What every feature's install gives the roles (issue 41: one shape, not six): the worker's job
 * handlers of its kinds, the schedulers it keeps in step with the config (`reconcile`, not awaited
 * at start), and what it closes. A feature with a chat side adds it beside (`clicks`, `onFiles`).
 */
export interface Feature<Kinds extends JobKind = never> {
  jobs: Pick<JobKindHandlers, Kinds>;
  reconcile?(): Promise<void>;
  close?(): Promise<void>;
}

/** What a job worker runs: the answer to each job, and the answer to a job that failed for good. */
export interface JobHandlers {
  run(data: JobData, info: RunInfo): Promise<unknown>;
  /**
   * The job failed for good (unrecoverable, out of tries, or stalled too often). `data` is
   * undefined when its payload did not parse.
   */
  failed(jobId: string, data: JobData | undefined, reason: string, how?: FailureHow): Promise<void>;
}

/** A kind this process has no handler for: its jobs are rejected (and retried elsewhere as the queue says). */
export function noHandler(kind: JobKind): KindHandler<JobData> {
  return { run: () => Promise.reject(new Error(`no handler for ${kind} jobs in this runner`)) };
}

/**
 * The job worker's handlers from the record: each job to its kind's handler. A failure goes to the
 * handler's `failed`; without one (or without a payload) it is only logged.
 */
export function routeJobs(record: Partial<JobKindHandlers>, logger: Logger): JobHandlers {
  const handlerOf = (data: JobData) => (record[data.kind] ?? noHandler(data.kind)) as KindHandler<JobData>;
  return {
    run: (data, info) => handlerOf(data).run(data, info),
    failed: async (jobId, data, reason, how) => {
      const handler = data && handlerOf(data);
      if (data && handler?.failed) return handler.failed(jobId, data, reason, how);
      withFields(logger, { jobId, ...(data && 'cluster' in data ? { cluster: data.cluster } : {}) }).warn(
        { reason },
        'job failed for good',
      );
    },
  };
}

/** How the queue treats one kind of job, whichever process handles it. */
interface KindPolicy<J extends JobData> {
  /** While a job with this id waits or runs, an equal request joins it instead of queueing another. */
  deduplicationId(job: J): string;
  /** The cluster whose per-cluster lock the job holds while it runs (one job per cluster across workers). */
  lockedCluster?(job: J): string;
  /** It changes a cluster: never handed to another worker mid-run, and given the remediation timeout. */
  changesCluster?: true;
  /** It may run this long even when the job timeout is shorter. */
  minTimeoutMs?: number;
  /** It goes to the analyze queue (job-queue.ts ANALYZE_QUEUE_NAME), not the main one. */
  analyzeQueue?: true;
  /** Its job id, when it must not be random. */
  jobId?(job: J): string;
}

/** A space scan's own time box is at most 600 s (config schema); the job gets that and room for the answer. */
const SPACE_TIMEOUT_MS = 12 * 60_000;

const JOB_KINDS: { [K in JobKind]: KindPolicy<JobOf<K>> } = {
  // A remediation's job id comes from its plan, so a double click or a Slack retry adds no second job.
  remediate: {
    deduplicationId: (job) => `remediate:${job.plan}`,
    changesCluster: true,
    jobId: (job) => `remediate-${job.plan}`,
  },
  check: {
    deduplicationId: (job) => `check:${job.depth}:${job.cluster}`,
    lockedCluster: (job) => job.cluster,
  },
  status: { deduplicationId: (job) => `status:${job.channel}` },
  backups: { deduplicationId: (job) => `backups:${job.channel}:${job.cluster}` },
  lifecycle: {
    deduplicationId: (job) => `lifecycle:${job.task}:${job.channel}:${job.cluster}:${job.target ?? ''}`,
  },
  digest: { deduplicationId: (job) => `digest:${job.channel}:${job.slotMs ?? `now-${job.requestedAt}`}` },
  // Parts are added by their digest with fixed job ids, never through the deduplicating queue.
  'digest-part': {
    deduplicationId: (job) => `digest-part:${job.channel}:${job.requestedAt}:${job.clusters[0]}`,
  },
  analyze: { deduplicationId: (job) => `analyze:${job.channel}:${job.requestId}`, analyzeQueue: true },
  // Every notification counts (firing, then resolved): never merge two. Alert triage holds the
  // cluster lock too, so a resolved notification waits for its firing one.
  alert: {
    deduplicationId: (job) => `alert:${job.cluster}:${job.status}:${job.requestedAt}:${job.groupKey}`,
    lockedCluster: (job) => job.cluster,
  },
  // Scheduler jobs have ids of their own (`repeat:watch-<cluster>:<slot>`). A watch check holds
  // the cluster lock, so its kept scrapes and incident have one writer.
  watch: { deduplicationId: (job) => `watch:${job.cluster}`, lockedCluster: (job) => job.cluster },
  // One scan of a cluster at a time, whoever asks: a second would double the load on its follower.
  space: { deduplicationId: (job) => `space:${job.cluster}`, minTimeoutMs: SPACE_TIMEOUT_MS },
  maintenance: { deduplicationId: (job) => `maintenance:${job.task}:${job.cluster}`, changesCluster: true },
};

function policyOf(job: Pick<JobData, 'kind'>): KindPolicy<JobData> {
  return JOB_KINDS[job.kind] as KindPolicy<JobData>;
}

/** While a job with this id waits or runs, an equal request joins it instead of queueing another. */
export function deduplicationId(job: JobData): string {
  return policyOf(job).deduplicationId(job);
}

/** Jobs that change a cluster: never handed to another worker mid-run, and given the remediation timeout. */
export function changesCluster(job: JobData): boolean {
  return policyOf(job).changesCluster === true;
}

/** The job's id: its kind's own (a remediation's comes from its plan), else the kind and `random`. */
export function jobIdFor(job: JobData, random: string): string {
  return policyOf(job).jobId?.(job) ?? `${job.kind}-${random}`;
}

/** The cluster whose lock the job holds while it runs, if any. */
export function lockedCluster(job: JobData): string | undefined {
  return policyOf(job).lockedCluster?.(job);
}

/** The least time the job may run, whatever the job timeout (0: no floor). */
export function minTimeoutMs(job: JobData): number {
  return policyOf(job).minTimeoutMs ?? 0;
}

/** Whether the job goes to the analyze queue. */
export function onAnalyzeQueue(job: Pick<JobData, 'kind'>): boolean {
  return policyOf(job).analyzeQueue === true;
}
