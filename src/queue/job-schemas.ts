import { CHECK_DEPTHS } from '../contracts/check-depth.js';
import { z } from 'zod';

/**
 * Job payloads, versioned: a worker validates every payload it takes, and a payload it cannot read
 * fails at once (no retry). A new shape gets `v: 2` beside `v: 1` until old jobs have drained.
 */
const clusterName = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/);
const requester = {
  channel: z.string().min(1),
  user: z.string().min(1),
  requestedAt: z.number().int().nonnegative(),
};

export const checkJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('check'),
  depth: z.enum(CHECK_DEPTHS),
  cluster: clusterName,
  ...requester,
});

export const statusJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('status'),
  clusters: z.array(clusterName).min(1),
  ...requester,
});

/** `/etcd backups <cluster>`: the snapshots in its backup directory, each read, and its backup jobs. */
export const backupsJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('backups'),
  cluster: clusterName,
  ...requester,
});

/**
 * etcd's own lifecycle (src/lifecycle/): `/etcd upgrade-check <cluster> <minor>` and
 * `/etcd recover <cluster>` (also the "Show the recovery plan" button, answered in `thread`).
 */
export const lifecycleJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('lifecycle'),
  task: z.enum(['upgrade-check', 'recover']),
  cluster: clusterName,
  target: z.string().min(1).max(20).optional(),
  thread: z.string().max(64).optional(),
  ...requester,
});

/**
 * A channel's digest. Scheduled ones come from a BullMQ job scheduler (the slot is in the job id);
 * `slotMs` is set for a missed slot sent late; neither for `digest --now`.
 */
export const digestJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('digest'),
  slotMs: z.number().int().nonnegative().optional(),
  /** Set once the digest has handed its clusters out as `digest-part` children: it now collects them. */
  fanOut: z.strictObject({ parts: z.number().int().positive() }).optional(),
  ...requester,
});

/**
 * One share of a large digest's clusters, diagnosed by whichever worker takes it: a child job of the
 * digest, which collects what every part returned (src/digest/run-digest.ts).
 */
export const digestPartJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('digest-part'),
  clusters: z.array(clusterName).min(1).max(1000),
  ...requester,
});

const labels = z.record(z.string(), z.string());

/** One Alertmanager notification about one cluster: triage posts it and diagnoses in its thread. */
export const alertJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('alert'),
  cluster: clusterName,
  groupKey: z.string().min(1),
  status: z.enum(['firing', 'resolved']),
  alerts: z
    .array(
      z.strictObject({
        status: z.enum(['firing', 'resolved']),
        labels,
        annotations: labels,
        startsAt: z.string(),
        endsAt: z.string(),
        generatorURL: z.string(),
      }),
    )
    .max(50),
  commonLabels: labels,
  commonAnnotations: labels,
  externalURL: z.string(),
  ...requester,
});

/** A pressed (and, for actions that change something, confirmed) remediation button: src/remediation/. */
export const remediateJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('remediate'),
  /** The plan the press referenced: the confirmation plan for confirmed actions. */
  plan: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
  cluster: clusterName,
  ...requester,
  /**
   * HMAC over the fields above with REMEDIATION_SIGNING_KEY (src/remediation/job-signature.ts).
   * Optional in the schema so that a job without one reaches the runner, which refuses and audits it.
   */
  sig: z.string().max(64).optional(),
});

/** One check of a watched cluster, made by its BullMQ job scheduler (`watch-<cluster>`, src/queue/watch-schedules.ts). */
export const watchJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('watch'),
  cluster: clusterName,
  intervalSeconds: z.number().int().min(5),
});

/**
 * A cluster's maintenance window opened (its BullMQ job scheduler `maintenance-defrag-<cluster>`,
 * src/queue/maintenance-schedules.ts): the worker checks the window against its clock and runs the
 * task with the button's guards (src/remediation/maintenance-defrag.ts).
 */
export const maintenanceJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('maintenance'),
  cluster: clusterName,
  task: z.literal('defrag'),
});

/**
 * Collected evidence to analyse offline (src/offline/): files shared in Slack, downloaded by the
 * worker, or (from the shell only, where chat and worker are one process) paths on this host.
 */
export const analyzeJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('analyze'),
  source: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('slack'),
      files: z
        .array(z.strictObject({ id: z.string().regex(/^F[A-Z0-9]{2,40}$/), name: z.string().max(255) }))
        .min(1)
        .max(10),
    }),
    z.strictObject({ kind: z.literal('local'), paths: z.array(z.string().min(1).max(4096)).min(1).max(20) }),
  ]),
  /** The message the files came with (its Slack `ts`): a retried event joins the same job. */
  requestId: z.string().min(1).max(64),
  /** The thread to answer in (`thread_ts`), when there is one. */
  thread: z.string().max(64).optional(),
  ...requester,
});

/**
 * What fills a cluster's etcd (src/space/): `/etcd space`, or the "What fills it?" button of a
 * db-quota or db-fragmentation finding, answered in `thread` (the diagnosis's) when given.
 */
export const spaceJobSchema = z.strictObject({
  v: z.literal(1),
  kind: z.literal('space'),
  cluster: clusterName,
  thread: z.string().max(64).optional(),
  ...requester,
});

export const jobDataSchema = z.discriminatedUnion('kind', [
  remediateJobSchema,
  analyzeJobSchema,
  checkJobSchema,
  statusJobSchema,
  backupsJobSchema,
  lifecycleJobSchema,
  digestJobSchema,
  digestPartJobSchema,
  alertJobSchema,
  watchJobSchema,
  spaceJobSchema,
  maintenanceJobSchema,
]);

export type CheckJob = z.infer<typeof checkJobSchema>;
export type StatusJob = z.infer<typeof statusJobSchema>;
export type BackupsJob = z.infer<typeof backupsJobSchema>;
export type LifecycleJob = z.infer<typeof lifecycleJobSchema>;
export type DigestJob = z.infer<typeof digestJobSchema>;
export type DigestPartJob = z.infer<typeof digestPartJobSchema>;
export type AlertJob = z.infer<typeof alertJobSchema>;
export type RemediateJob = z.infer<typeof remediateJobSchema>;
export type WatchJob = z.infer<typeof watchJobSchema>;
export type MaintenanceJob = z.infer<typeof maintenanceJobSchema>;
export type AnalyzeJob = z.infer<typeof analyzeJobSchema>;
export type SpaceJob = z.infer<typeof spaceJobSchema>;
export type JobData = z.infer<typeof jobDataSchema>;
