import { z } from 'zod';

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
});

const slackSchema = z.strictObject({
  channel: z.string().min(1).optional(),
  allowedChannels: z.array(z.string().min(1)).optional(),
});

const responderId = z
  .string()
  .regex(/^[US][A-Z0-9]{2,}$/, { error: 'must be a Slack user id (U…) or user-group id (S…)' });

const remediationSchema = z.strictObject({
  responders: z.array(responderId).optional(),
  dryRun: z.boolean().optional(),
  snapshotDir: z.string().min(1).optional(),
  diskBenchmarkImage: z.string().min(1).optional(),
});

const ticketsSchema = z.strictObject({
  kind: z.enum(['jira', 'github', 'webhook']),
  url: httpUrl,
  credentialEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, { error: 'must be an environment variable name' })
    .optional(),
  project: z.string().min(1).optional(),
});

export const clusterSchema = z
  .strictObject({
    name: clusterName,
    etcd: etcdSchema.default({}),
    kubernetes: kubernetesSchema.optional(),
    slack: slackSchema.optional(),
    remediation: remediationSchema.optional(),
    tickets: ticketsSchema.optional(),
  })
  .superRefine((cluster, ctx) => {
    const endpoints = cluster.etcd.endpoints;
    if (!endpoints && !cluster.kubernetes) {
      ctx.addIssue({
        code: 'custom',
        path: ['etcd', 'endpoints'],
        message: 'is missing (list the client URLs, or set kubernetes to discover them from the etcd pods)',
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

export const configFileSchema = z
  .strictObject({
    clusters: z.array(clusterSchema).min(1, { error: 'needs at least one cluster' }),
    probes: probeSettingsSchema.default({ timeoutMs: 3000, metricsWindowMs: 3000 }),
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
export type ProbeSettings = z.infer<typeof probeSettingsSchema>;
