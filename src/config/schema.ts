import { z } from 'zod';
import { parseMaintenanceWindow } from './maintenance-window.js';

/** A cluster name is a lowercase word: it is typed in chat (`/etcd diagnose prod`). */
const clusterName = z
  .string({ error: 'must be a string' })
  .regex(/^[a-z][a-z0-9-]{0,39}$/, { error: 'must be a lowercase word (a-z, 0-9, -), e.g. prod' });

const httpUrl = z.url({ protocol: /^https?$/, error: 'not a URL' });

const tlsSchema = z.strictObject({
  caFile: z.string().min(1).optional(),
  certFile: z.string().min(1).optional(),
  keyFile: z.string().min(1).optional(),
});

const etcdSchema = z.strictObject({
  /** Optional when `kubernetes` is set: the client URLs are then read from the etcd pods' flags. */
  endpoints: z.array(httpUrl).min(1, { error: 'needs at least one client URL' }).optional(),
  metricsUrls: z.array(httpUrl).optional(),
  tls: tlsSchema.optional(),
});

const kubernetesSchema = z.strictObject({
  kubeconfig: z.string().min(1).optional(),
  context: z.string().min(1).optional(),
  inCluster: z.boolean().optional(),
  distribution: z.enum(['auto', 'kubeadm', 'openshift']).optional(),
  /**
   * The API server's audit log (its `--audit-log-path`, JSON lines), as a file etcd-doctor can read:
   * a diagnosis reads its end to name who lists (issue 39). Only the last `maxMiB` MiB (default 16)
   * and at most its last `maxLines` lines (default 100,000) are read.
   */
  auditLog: z
    .strictObject({
      path: z.string().min(1),
      maxMiB: z.number().int().min(1).max(256).optional(),
      maxLines: z.number().int().min(100).max(1_000_000).optional(),
    })
    .optional(),
});

const slackSchema = z.strictObject({
  channel: z.string().min(1).optional(),
  /** Slack channel IDs only (C…, G…): a name can be renamed, or reused by another channel. */
  allowedChannels: z
    .array(
      z.string().regex(/^[CGD][A-Z0-9]{2,}$/, {
        error:
          "must be a Slack channel ID such as C0123456789, not a name (names can be renamed and reused); find it in the channel's details",
      }),
    )
    .optional(),
});

const responderId = z
  .string()
  .regex(/^[US][A-Z0-9]{2,}$/, { error: 'must be a Slack user id (U…) or user-group id (S…)' });

/** `registry/name[:tag]@sha256:<64 hex>`: a tag can be moved, a digest cannot. */
const pinnedImage = z.string().regex(/^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$/, {
  error: 'must be pinned by digest (name@sha256:<64 hex>); a tag can be moved to another image',
});

const remediationSchema = z.strictObject({
  responders: z.array(responderId).optional(),
  dryRun: z.boolean().optional(),
  snapshotDir: z.string().min(1).optional(),
  /** recover-nospace keeps this many snapshots per cluster (default 3). */
  snapshotKeep: z.number().int().min(1).max(100).optional(),
  /** An image with fio and sh, pinned by digest. */
  diskBenchmarkImage: pinnedImage.optional(),
  /** The image of the short-lived pod that moves a static pod manifest out and back (needs sh, mv, sleep). */
  helperImage: pinnedImage.optional(),
  /** Buttons expire this long after their diagnosis; actions that change something never later than 30 min. */
  planExpiryMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .optional(),
  /** Pause between two members' defragmentation (KB R3: CEOP 36 s, Red Hat about a minute). */
  defragPauseSeconds: z.number().min(0).max(600).optional(),
});

/** etcd-doctor's own secrets: never sent to a tracker, whoever edits the config. */
export const RESERVED_ENV_PREFIXES = ['SLACK_', 'REDIS_', 'ALERTMANAGER_', 'MCP_', 'ETCD_DOCTOR_'] as const;

/** 127.0.0.0/8, ::1 and localhost: the only hosts a ticket URL may reach over plain http (a local proxy). */
export function isLoopbackHost(hostname: string): boolean {
  return (
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) || hostname === '[::1]' || hostname === 'localhost'
  );
}

const ticketUrl = httpUrl.refine(
  (u) => new URL(u).protocol === 'https:' || isLoopbackHost(new URL(u).hostname),
  {
    error: 'must be https: the ticket credential would cross the network in clear',
  },
);

const ticketsSchema = z.strictObject({
  kind: z.enum(['jira', 'github', 'webhook']),
  /** https; plain http only to loopback (a proxy on the same host: the credential stays on it). */
  url: ticketUrl,
  credentialEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, { error: 'must be an environment variable name' })
    .refine((name) => !RESERVED_ENV_PREFIXES.some((p) => name.startsWith(p)), {
      error: `must not name one of etcd-doctor's own secrets (${RESERVED_ENV_PREFIXES.map((p) => `${p}*`).join(', ')})`,
    })
    .optional(),
  project: z.string().min(1).optional(),
});

/** Watching: a check every `intervalSeconds` (src/watch/). */
export const watchSettingsSchema = z.strictObject({
  intervalSeconds: z
    .number({ error: 'must be a whole number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(5, { error: 'must be at least 5 (seconds): each check scrapes every member once' })
    .max(24 * 3600, { error: 'must be at most 86400 (a day)' }),
});

/** What fills etcd (`space`): how the live scan reads the keyspace (src/space/). */
export const spaceSettingsSchema = z.strictObject({
  /** The key prefixes the apiserver writes under (default /registry/, /kubernetes.io/, /openshift.io/; `--etcd-prefix`). */
  prefixes: z
    .array(z.string().startsWith('/', { error: 'must start with /' }).min(2))
    .min(1)
    .optional(),
  /** The scan reads at most this many bytes per second from its follower (default 5 MB/s). */
  bytesPerSecond: z
    .number()
    .int()
    .min(64 * 1024)
    .max(1024 ** 3)
    .optional(),
  /** The scan stops after this long and says how far it got (default 120 s). */
  maxScanSeconds: z.number().int().min(5).max(600).optional(),
  /** Writes are counted over this window (default 5 s). */
  churnSeconds: z.number().int().min(1).max(60).optional(),
});

/**
 * A basename glob: `*` any run of characters, `?` one, everything else literal (no `/`: the files
 * sit directly in `dir`). Written by hand on purpose: node's path.matchesGlob prints an
 * ExperimentalWarning on Node 20 and 22, which would land in the CLI's stderr.
 */
const fileGlob = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^/\\]+$/, { error: 'must be a file name pattern such as *.db (no directory: set dir)' });

/**
 * Snapshots of the cluster (`etcdctl snapshot save` files) in a directory the worker can read, and
 * the backup CronJobs Kubernetes shows (src/probes/backups.ts). Off when unset.
 */
export const backupsSchema = z.strictObject({
  /** An absolute path: the worker runs wherever it is deployed, a relative one would move with it. */
  dir: z.string().startsWith('/', { error: 'must be an absolute path (a mounted volume)' }).optional(),
  /** The newest good snapshot older than this is `backup-stale` (default 24). */
  maxAgeHours: z
    .number()
    .positive({ error: 'must be more than 0 (hours)' })
    .max(24 * 366, { error: 'must be at most 8784 (a year, in hours)' })
    .default(24),
  pattern: fileGlob.default('*.db'),
});

/**
 * Defragmentation thresholds and window (docs/remediation.md). The thresholds apply to the button
 * too: a member whose defragmentation would free less than either is skipped.
 */
const defragMaintenanceSchema = z.strictObject({
  /** `sun 02:00-04:00` (UTC): defragment in this window, with the button's guards. Unset: only on demand. */
  window: z
    .string({ error: 'must be a string such as "sun 02:00-04:00"' })
    .superRefine((text, ctx) => {
      const parsed = parseMaintenanceWindow(text);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
    })
    .optional(),
  /** Skip a member whose free pages are under this share of its file (default 0.1). */
  minFreeRatio: z
    .number({ error: 'must be a number between 0 and 1, e.g. 0.1 for 10 %' })
    .min(0, { error: 'must be between 0 and 1, e.g. 0.1 for 10 %' })
    .max(1, { error: 'must be between 0 and 1, e.g. 0.1 for 10 %' })
    .optional(),
  /** Skip a member whose free pages are under this many bytes (default 50 MB). */
  minFreeBytes: z
    .number({ error: 'must be a whole number of bytes, e.g. 50000000' })
    .int({ error: 'must be a whole number of bytes, e.g. 50000000' })
    .min(0, { error: 'must be 0 or more bytes' })
    .optional(),
});

const maintenanceSchema = z.strictObject({
  defrag: defragMaintenanceSchema.optional(),
  /**
   * How often the cluster is compacted, in seconds (default 300: kube-apiserver's
   * --etcd-compaction-interval). compaction-stalled judges the last compaction against it.
   */
  compactionIntervalSeconds: z
    .number({ error: 'must be a number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(1, { error: 'must be at least 1 (second)' })
    .max(30 * 24 * 3600, { error: 'must be at most 2592000 (30 days)' })
    .optional(),
});

export const clusterSchema = z
  .strictObject({
    name: clusterName,
    etcd: etcdSchema.default({}),
    kubernetes: kubernetesSchema.optional(),
    slack: slackSchema.optional(),
    remediation: remediationSchema.optional(),
    tickets: ticketsSchema.optional(),
    /** Off when unset (and no top-level `watch`). */
    watch: watchSettingsSchema.optional(),
    space: spaceSettingsSchema.optional(),
    backups: backupsSchema.optional(),
    maintenance: maintenanceSchema.optional(),
  })
  .superRefine((cluster, ctx) => {
    if (cluster.maintenance?.defrag?.window && !cluster.slack?.channel) {
      ctx.addIssue({
        code: 'custom',
        path: ['maintenance', 'defrag', 'window'],
        message: 'needs slack.channel: the window posts what it did there',
      });
    }
    const endpoints = cluster.etcd.endpoints;
    if (!endpoints && !cluster.kubernetes) {
      ctx.addIssue({
        code: 'custom',
        path: ['etcd', 'endpoints'],
        message: 'is missing (list the client URLs, or set kubernetes to discover them from the etcd pods)',
      });
    }
    if (cluster.backups && !cluster.backups.dir && !cluster.kubernetes) {
      ctx.addIssue({
        code: 'custom',
        path: ['backups', 'dir'],
        message:
          'is missing (name the directory that holds the snapshots, or set kubernetes to read the backup CronJobs)',
      });
    }
    const metrics = cluster.etcd.metricsUrls;
    if (metrics && endpoints && metrics.length !== endpoints.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['etcd', 'metricsUrls'],
        message: `needs one URL per endpoint (${endpoints.length}), in the same order`,
      });
    }
  });

/** Probe timing. Defaults are chosen so a diagnose with a hung member still returns in about 5 s. */
export const probeSettingsSchema = z.strictObject({
  timeoutMs: z.number().int().min(100).max(60_000).default(3000),
  metricsWindowMs: z.number().int().min(0).max(60_000).default(3000),
});

/** Diagnosis history in Redis, for the digest's trends. */
export const historySettingsSchema = z.strictObject({
  retentionDays: z.number().int().min(1).max(365).optional(),
});

/** The daily digest. */
export const digestSettingsSchema = z.strictObject({
  /** At most this many clusters diagnosed at once per worker process (default: no cap beyond memoryBudgetMiB). */
  concurrency: z.number().int().min(1).max(1000).optional(),
  /**
   * MiB the digest's clusters in flight may hold per worker process, estimated per member
   * (digest/memory-budget.ts): an eighth for clusters waiting out their metrics windows, the rest
   * for runs and first scrapes. Default a sixth of the V8 heap limit (~43 MiB at --max-old-space-size=256), at most 64.
   */
  memoryBudgetMiB: z.number().int().min(8).max(65_536).optional(),
  /** A digest of more clusters than this shares them out among the workers, this many per job (default 50). */
  partSize: z.number().int().min(1).max(1000).optional(),
  /** A slot sent this long after its time is marked late (default 10). */
  lateAfterMinutes: z.number().int().min(1).max(1440).optional(),
});

/** Alert-driven triage (POST /alertmanager). */
export const alertmanagerSettingsSchema = z.strictObject({
  /** The alert label that names the cluster (default `cluster`). */
  clusterLabel: z.string().min(1).optional(),
  /** Notifications of any group about one cluster share one diagnosis within this many minutes (default 5). */
  coalesceMinutes: z.number().int().min(0).max(1440).optional(),
  /** A group that fires again within this many minutes of its last notification reuses its thread (default 720). */
  threadWindowMinutes: z
    .number()
    .int()
    .min(1)
    .max(7 * 1440)
    .optional(),
});

/** Offline analysis of files shared in chat (offline/install.ts). */
export const offlineSettingsSchema = z.strictObject({
  /** A file shared in chat larger than this is refused, before downloading when Slack gives its size (default 250 MB). */
  maxFileBytes: z
    .number()
    .int()
    .min(1)
    .max(4 * 1024 ** 3)
    .optional(),
  /** The heap (MiB, V8 old generation) of the process that reads one shared file set; it holds 128 MiB more at most (default 192). */
  analysisMemoryMb: z.number().int().min(32).max(16_384).optional(),
  /**
   * Analyses at once in one worker process (default 1), on their own queue: each holds a process of
   * analysisMemoryMb + 128 MiB and up to 10 downloads of maxFileBytes in the temp dir.
   */
  concurrency: z.number().int().min(1).max(16).optional(),
  /**
   * Who reads shared files: `worker` (default), or `analyzer`, the `etcd-doctor analyzer` pods of
   * deploy/kubernetes/components/analyzer, which hold no etcd or Kubernetes credentials; the workers
   * then leave the analyze queue to them (issue 38 M3).
   */
  analysisIn: z.enum(['worker', 'analyzer']).optional(),
});

/** `etcd-doctor mcp` and `/mcp`. */
export const mcpSettingsSchema = z.strictObject({
  /**
   * Directories whose files (must-gathers, logs) the etcd_analyze tool may read. Over HTTP the
   * caller is remote: without any, /mcp has no etcd_analyze tool. Over stdio they bound it too.
   */
  analyzeRoots: z.array(z.string().startsWith('/', { error: 'must be an absolute path' })).optional(),
  /**
   * DNS-rebinding protection (MCP spec, Streamable HTTP "Security Warning"): a request with an
   * `Origin` (a browser's) is refused unless it is listed here; none listed, every browser is refused.
   */
  allowedOrigins: z.array(z.url({ error: 'must be an origin such as https://ide.example.com' })).optional(),
  /** When set, a request whose `Host` header is not one of these (`name` or `name:port`) is refused. */
  allowedHosts: z.array(z.string().min(1)).optional(),
  /** Tool calls /mcp runs at once in one process (default 4); a POST over it is answered 429. */
  maxConcurrentCalls: z.number().int().min(1).max(100).optional(),
  /** Tool calls /mcp takes a minute across every replica (default 30, counted in Redis); then 429. */
  callsPerMinute: z.number().int().min(1).max(10_000).optional(),
});

export const configFileSchema = z
  .strictObject({
    clusters: z.array(clusterSchema).min(1, { error: 'needs at least one cluster' }),
    probes: probeSettingsSchema.default({ timeoutMs: 3000, metricsWindowMs: 3000 }),
    history: historySettingsSchema.optional(),
    digest: digestSettingsSchema.optional(),
    alertmanager: alertmanagerSettingsSchema.optional(),
    /** The default watch interval of every cluster without its own `watch`. */
    watch: watchSettingsSchema.optional(),
    offline: offlineSettingsSchema.optional(),
    mcp: mcpSettingsSchema.optional(),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.clusters.forEach((cluster, index) => {
      if (seen.has(cluster.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['clusters', index, 'name'],
          message: `duplicate cluster name "${cluster.name}"`,
        });
      }
      seen.add(cluster.name);
    });
  });

export type ClusterConfig = z.infer<typeof clusterSchema>;
/** A cluster whose etcd client URLs are known: configured, or discovered through Kubernetes. */
export type ResolvedCluster = ClusterConfig & { etcd: ClusterConfig['etcd'] & { endpoints: string[] } };
export type ConfigFile = z.infer<typeof configFileSchema>;
