import { z } from 'zod';

/**
 * The tools' zod schemas: inputs (validated by the SDK before a handler runs) and outputs (sent in
 * tools/list as JSON Schema, and checked against every structured result). Outputs follow the
 * `--json` contract of DESIGN.md and are loose objects: fields the report gains later (isLearner,
 * access, source, timeline) pass through instead of failing validation on either side.
 */

const CLUSTER_HINT = 'call etcd_list_clusters for the names';

export const clusterInput = (known: readonly string[]) =>
  z
    .string()
    .min(1)
    .max(100)
    .describe(
      `Name of the etcd cluster as etcd-doctor's config calls it${known.length ? ` (configured: ${known.join(', ')})` : ''}; ${CLUSTER_HINT}.`,
    );

export const healthInput = (known: readonly string[]) => z.object({ cluster: clusterInput(known) });

export const diagnoseInput = (known: readonly string[]) =>
  z.object({
    cluster: clusterInput(known),
    explain: z
      .boolean()
      .default(false)
      .describe(
        'Also return `explain`: for every diagnosis rule, whether it fired and the numbers it compared. Use it to answer "why not X?".',
      ),
  });

export const auditInput = z.object({
  cluster: z.string().min(1).max(100).optional().describe('Only entries for this cluster.'),
  since: z
    .string()
    .regex(/^\d+\s*[smhd]$/, 'a duration such as 30m, 1h or 7d')
    .default('24h')
    .describe('How far back to read: 30m, 6h, 7d. Default 24h.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(200)
    .describe('At most this many entries, oldest first. Default 200.'),
});

/** Files are read one by one; a must-gather is one directory or tarball, a few logs are a few paths. */
export const MAX_ANALYZE_PATHS = 20;

export const analyzeInput = z.object({
  paths: z
    .array(z.string().min(1).max(4096))
    .min(1)
    .max(MAX_ANALYZE_PATHS)
    .describe(
      'Absolute paths on the machine etcd-doctor runs on: a must-gather directory or tarball, a `kubectl cluster-info dump` directory, or etcd / kube-apiserver log files.',
    ),
});

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

export const memberOutput = z.looseObject({
  name: z.string(),
  endpoint: z.string(),
  id: nullable(z.string()),
  /** null: etcd-doctor could not check it with its own access (then `access` says why). */
  reachable: z.boolean().nullable(),
  isLeader: z.boolean(),
  isLearner: z.boolean().optional(),
  tookMs: nullable(z.number()),
  dbSizeBytes: nullable(z.number()),
  dbSizeInUseBytes: nullable(z.number()),
});

export const findingOutput = z.looseObject({
  cause: z.string(),
  severity: z.enum(['critical', 'warning', 'info']),
  members: z.array(z.string()),
  nodes: z.array(z.string()),
  summary: z.string(),
  evidence: z.array(z.string()),
  remediation: z.array(z.string()),
  causedBy: nullable(z.string()),
});

export const probeOutput = z.looseObject({
  name: z.string(),
  ok: z.boolean(),
  durationMs: z.number(),
  error: nullable(z.string()),
});

/** `--json`: `{ cluster, status, durationMs, members, findings, probes }`; `findings[0]` is the root cause. */
export const reportOutput = z.looseObject({
  cluster: z.string(),
  status: z.enum(['healthy', 'degraded', 'critical', 'unknown']),
  durationMs: z.number(),
  members: z.array(memberOutput),
  findings: z.array(findingOutput),
  probes: z.array(probeOutput),
});

export const statusOutput = z.object({
  reports: z.array(reportOutput).describe('One health report per cluster that could be checked.'),
  errors: z
    .array(z.object({ cluster: z.string(), error: z.string() }))
    .describe('Clusters etcd-doctor could not check at all, with the reason. Not a verdict on them.'),
});

export const clustersOutput = z.object({
  clusters: z.array(
    z.object({
      name: z.string(),
      endpoints: z
        .array(z.string())
        .nullable()
        .describe('etcd client URLs; null when they are discovered from the etcd pods through Kubernetes.'),
      kubernetes: z.boolean().describe('Kubernetes is configured: diagnose also reads the control plane.'),
    }),
  ),
});

export const auditOutput = z.object({
  entries: z.array(
    z.looseObject({
      id: z.string(),
      at: z.string(),
      event: z.string(),
      cluster: z.string(),
      user: z.string(),
      action: z.string(),
      plan: z.string(),
      detail: z.string(),
    }),
  ),
});

export const spaceInput = (known: readonly string[]) =>
  z.object({
    cluster: clusterInput(known),
    maxSeconds: z
      .number()
      .int()
      .min(5)
      .max(600)
      .default(30)
      .describe(
        'Stop reading values after this many seconds; the answer then says scan.complete false and how far it got (key counts are read first, so they are usually complete). Default 30.',
      ),
  });

const resourceSpaceOutput = z.looseObject({
  resource: z
    .string()
    .describe('`configmaps`, or `<resource>.<group>` for a custom resource (`widgets.example.com`).'),
  prefix: z.string(),
  keys: z.number(),
  bytes: z.number().describe('Keys plus values, in bytes.'),
  share: z.number().describe('Of all key + value bytes read, 0..1.'),
});

/** `etcd-doctor space --json` (DESIGN.md). */
export const spaceOutput = z.looseObject({
  cluster: z.string(),
  measuredAt: z.string(),
  revision: z.number(),
  compactRevision: z.number().describe('The revision etcd last compacted at; 0 if never.'),
  dbSize: z.number(),
  dbSizeInUse: z.number(),
  quota: z.number().nullable().describe('--quota-backend-bytes from /metrics; null when not read.'),
  totalKeys: z.number(),
  totalBytes: z.number(),
  byResource: z.array(resourceSpaceOutput),
  byNamespace: z.array(
    z.looseObject({ resource: z.string(), namespace: z.string(), keys: z.number(), bytes: z.number() }),
  ),
  largest: z.array(z.looseObject({ key: z.string(), bytes: z.number(), resource: z.string() })),
  churn: z.array(z.looseObject({ resource: z.string(), writesPerSecond: z.number() })),
  scan: z.looseObject({
    complete: z.boolean(),
    bytesRead: z.number(),
    durationMs: z.number(),
  }),
});

const snapshotFacts = z.looseObject({
  revision: z.number(),
  hashOk: z.boolean().nullable().describe('The SHA-256 trailer matches; null without one (a member db).'),
  totalKeys: z.number(),
  sizeBytes: z.number(),
});

const snapshotSpace = z.looseObject({
  byResource: z.array(resourceSpaceOutput),
  byNamespace: z.array(z.looseObject({ resource: z.string(), namespace: z.string() })),
  largest: z.array(z.looseObject({ key: z.string(), bytes: z.number() })),
});

/**
 * etcd_analyze's result, one object for its two answers (an MCP output schema is one object type):
 * `kind: "analyze"` is `etcd-doctor analyze --json`, the report (cluster, status, members, findings,
 * probes) plus what was read (`source`) and when things happened (`timeline`, oldest first);
 * `kind: "snapshot"` is `analyze snapshot.db --json`, the file's `snapshot` facts and its `space`.
 */
export const analyzeOutput = z.looseObject({
  kind: z
    .enum(['analyze', 'snapshot'])
    .describe("`analyze`: collected evidence, the rules' report; `snapshot`: an etcd snapshot file."),
  durationMs: z.number(),
  source: z.array(
    z.looseObject({
      kind: z.string(),
      path: z.string().describe('The path as given.'),
      entries: z.number(),
      bytes: z.number(),
      skipped: z.number(),
    }),
  ),
  cluster: z.string().optional().describe('kind analyze: what was analysed, named from the paths.'),
  status: reportOutput.shape.status.optional(),
  members: z.array(memberOutput).optional(),
  findings: z.array(findingOutput).optional().describe('kind analyze: findings[0] is the root cause.'),
  probes: z.array(probeOutput).optional(),
  timeline: z
    .array(
      z.looseObject({
        signal: z.string(),
        member: z.string().nullable(),
        firstSeenAt: z.string(),
        lastSeenAt: z.string(),
        count: z.number(),
      }),
    )
    .optional(),
  snapshot: snapshotFacts.optional().describe('kind snapshot: hashOk false means the file is damaged.'),
  space: snapshotSpace.optional().describe('kind snapshot: what fills it, as etcd_space says it live.'),
});

export const upgradeCheckInput = (known: readonly string[]) =>
  z.object({
    cluster: clusterInput(known),
    target: z
      .string()
      .min(1)
      .max(20)
      .describe('The etcd minor to upgrade to: 3.5, 3.6 or 3.7 (one minor after the one the cluster runs).'),
  });

export const upgradeCheckOutput = z.looseObject({
  cluster: z.string(),
  target: z.string(),
  ready: z.boolean().describe('True when no check blocks the upgrade.'),
  blockers: z.array(
    z.looseObject({ check: z.string(), members: z.array(z.string()), summary: z.string(), fix: z.string() }),
  ),
  passed: z.array(z.looseObject({ check: z.string(), summary: z.string() })),
  unchecked: z
    .array(z.looseObject({ check: z.string(), summary: z.string() }))
    .describe('Checks whose evidence could not be read: neither passed nor blocking.'),
});

export const recoverOutput = z.looseObject({
  cluster: z.string(),
  restoreFrom: z
    .looseObject({ member: z.string().nullable(), source: z.string(), revision: z.number().nullable() })
    .nullable()
    .describe(
      'Where to restore from: the member with the newest data, or the verified backup; null: nothing.',
    ),
  candidates: z.array(z.looseObject({ member: z.string().nullable(), source: z.string() })),
  dataAtRisk: z.string(),
  steps: z.array(z.looseObject({ on: z.string(), action: z.string(), command: z.string() })),
});
