import type { CheckDepth } from '../contracts/check-depth.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigFile } from '../config/schema.js';
import { mapConcurrent } from '../map-concurrent.js';
import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { STATUS_WORD } from '../report/chat-view.js';
import { clustersOutput, diagnoseInput, healthInput, reportOutput, statusOutput } from './schemas.js';
import { summarizeReport } from './summarize-report.js';
import { progressOf, reportResult, runTool, structuredResult } from './tool-result.js';

export interface ClusterToolDeps {
  doctor: Doctor;
  config: ConfigFile;
  logger: Logger;
}

/** Every tool only reads: no write to etcd, Kubernetes or Redis. Remediation stays behind Slack. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

/** `etcd_status` checks this many clusters at once (each is a few gRPC calls per member). */
const STATUS_CONCURRENCY = 8;

const STATUS_MEANING =
  'status is healthy, degraded, critical, or unknown (etcd-doctor itself could not check: its credentials, URLs or network path; not a verdict that the cluster is down).';

export function registerClusterTools(server: McpServer, deps: ClusterToolDeps): void {
  const known = deps.config.clusters.map((c) => c.name);
  registerListClusters(server, deps);

  server.registerTool(
    'etcd_health',
    {
      title: 'etcd cluster health',
      description: [
        'Quick health check of one etcd cluster (etcd is the key-value store behind the Kubernetes control plane), usually under a second.',
        'For each member: whether it answers, which one is the raft leader, how long a linearizable read took, database size, and active alarms such as NOSPACE.',
        `Returns etcd-doctor's JSON report; findings[0], if any, is the most likely root cause (a known-bug finding, a risk of the release a member runs, never is: it comes after every fault). ${STATUS_MEANING}`,
        'For a root-cause analysis with metrics, clocks and Kubernetes, use etcd_diagnose. Read-only.',
      ].join(' '),
      inputSchema: healthInput(known),
      outputSchema: reportOutput,
      annotations: { ...READ_ONLY, title: 'etcd cluster health' },
    },
    (args, extra) =>
      runTool('etcd_health', extra, deps.logger, async () =>
        reportResult(await checkCluster(deps.doctor, args.cluster, 'health', false, extra)),
      ),
  );

  server.registerTool(
    'etcd_diagnose',
    {
      title: 'Diagnose an etcd cluster',
      description: [
        'Find the root cause of an etcd or Kubernetes control-plane problem on one cluster: slow disk (WAL fsync), clock skew, peer network, a member down or hung, quorum lost, leader churn, database quota (NOSPACE) or fragmentation, CPU starvation, control-plane restarts, missing static pods, non-durable storage, API server latency, etcd certificates about to expire.',
        'Runs every probe (member status, /metrics sampled over a few seconds, clocks, and the Kubernetes control plane when configured), then the rules. Takes about 3 to 10 seconds.',
        'findings are ranked: findings[0] is the root cause, each with the members affected, evidence with numbers, and remediation steps for a human; causedBy links a symptom to the finding that explains it.',
        "On a watched cluster a finding also says since when it has lasted (findings[].since[], from the watch's minute history).",
        `A member that does not answer is a finding in a normal result ("etcd-3 did not answer Status in 3 s"), not a tool error. ${STATUS_MEANING}`,
        'Read-only: it changes nothing. Remediation is done by people, through etcd-doctor in Slack.',
      ].join(' '),
      inputSchema: diagnoseInput(known),
      outputSchema: reportOutput,
      annotations: { ...READ_ONLY, title: 'Diagnose an etcd cluster' },
    },
    (args, extra) =>
      runTool('etcd_diagnose', extra, deps.logger, async () =>
        reportResult(await checkCluster(deps.doctor, args.cluster, 'diagnose', args.explain, extra)),
      ),
  );

  server.registerTool(
    'etcd_status',
    {
      title: 'Status of every etcd cluster',
      description: [
        'Health check of every etcd cluster etcd-doctor is configured for, at once: one report per cluster, each with its status and findings.',
        `Use it to answer "is anything wrong anywhere?", then etcd_diagnose the cluster that is not healthy. ${STATUS_MEANING}`,
        'Clusters that could not be checked at all are listed in errors with the reason. Read-only.',
      ].join(' '),
      outputSchema: statusOutput,
      annotations: { ...READ_ONLY, title: 'Status of every etcd cluster' },
    },
    (extra) => runTool('etcd_status', extra, deps.logger, () => statusOfAll(deps.doctor, extra.signal)),
  );
}

function registerListClusters(server: McpServer, deps: ClusterToolDeps): void {
  server.registerTool(
    'etcd_list_clusters',
    {
      title: 'List etcd clusters',
      description:
        "List the etcd clusters this etcd-doctor is configured to check: the names the other etcd_* tools take, each cluster's etcd client URLs, and whether Kubernetes is configured for it. Reads the configuration only; contacts nothing.",
      outputSchema: clustersOutput,
      annotations: { ...READ_ONLY, openWorldHint: false, title: 'List etcd clusters' },
    },
    (extra) =>
      runTool('etcd_list_clusters', extra, deps.logger, async () => {
        const clusters = deps.config.clusters.map((c) => ({
          name: c.name,
          endpoints: c.etcd.endpoints ?? null,
          kubernetes: c.kubernetes !== undefined,
        }));
        const lines = clusters.map(
          (c) =>
            `${c.name}: ${c.endpoints ? c.endpoints.join(', ') : 'endpoints discovered through Kubernetes'}${c.kubernetes ? ' (with Kubernetes)' : ''}`,
        );
        const summary = clusters.length
          ? `${clusters.length} cluster${clusters.length === 1 ? '' : 's'} configured:\n${lines.join('\n')}`
          : 'No cluster is configured (clusters: in the etcd-doctor config file).';
        return structuredResult(summary, { clusters });
      }),
  );
}

async function checkCluster(
  doctor: Doctor,
  cluster: string,
  depth: CheckDepth,
  explain: boolean,
  extra: Parameters<typeof progressOf>[0],
): Promise<DiagnosisReport> {
  const progress = progressOf(extra);
  const report = await doctor.run(cluster, depth, {
    explain,
    signal: extra.signal,
    ...(progress ? { onProgress: progress.onProgress } : {}),
  });
  await progress?.done();
  return report;
}

async function statusOfAll(doctor: Doctor, signal: AbortSignal) {
  const outcomes = await mapConcurrent(doctor.clusterNames(), STATUS_CONCURRENCY, async (cluster) => {
    try {
      // Every cluster once: only the ones someone then looks at keep their connections.
      return { report: await doctor.run(cluster, 'health', { keepClients: false, signal }) };
    } catch (err) {
      signal.throwIfAborted();
      return { error: { cluster, error: describeError(err) } };
    }
  });
  const reports = outcomes.flatMap((o) => (o.report ? [o.report] : []));
  const errors = outcomes.flatMap((o) => (o.error ? [o.error] : []));
  const lines = [
    ...reports.map((r) => `${r.cluster}: ${STATUS_WORD[r.status]}. ${summarizeReport(r).split('\n')[0]}`),
    ...errors.map((e) => `${e.cluster}: could not be checked (${e.error})`),
  ];
  const summary = lines.length ? lines.join('\n') : 'No cluster is configured.';
  return structuredResult(summary, { reports, errors });
}
