import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { findCluster } from '../config/load-config.js';
import type { ClusterConfig, ConfigFile } from '../config/schema.js';
import type { Logger } from '../logger.js';
import { formatBytes } from '../format.js';
import type { SpaceRunOptions } from '../space/measure-space.js';
import { churnWords, scanWords, spaceHeadline } from '../space/render-space.js';
import type { SpaceReport } from '../space/space-report.js';
import type { SnapshotReport } from '../offline/snapshot/analyze-snapshot.js';
import { untilAborted } from '../timing.js';
import { READ_ONLY } from './cluster-tools.js';
import { spaceInput, spaceOutput } from './schemas.js';
import { runTool, structuredResult, type ToolExtra } from './tool-result.js';

/** Measures one cluster's space (src/space/measure-space.ts with the process's file reader). */
export type SpaceMeter = (cluster: ClusterConfig, opts: SpaceRunOptions) => Promise<SpaceReport>;

/**
 * One scan of a cluster at a time, whoever calls: a call while one runs joins it (its answer, at
 * the first call's time box), as `/etcd space` joins a running job. Over HTTP every request has a
 * server of its own, so /mcp shares one meter: four callers at once are one scan's load on the
 * follower, not four. A caller that cancels stops waiting; the scan ends at its own time box.
 */
export function createSharedSpaceMeter(
  measure: (cluster: ClusterConfig, opts: SpaceRunOptions) => Promise<SpaceReport>,
): SpaceMeter {
  const running = new Map<string, Promise<SpaceReport>>();
  return (cluster, { signal, ...opts }) => {
    let scan = running.get(cluster.name);
    if (!scan) {
      scan = measure(cluster, opts).finally(() => running.delete(cluster.name));
      running.set(cluster.name, scan);
    }
    return untilAborted(scan, signal);
  };
}

export function registerSpaceTool(
  server: McpServer,
  deps: { config: ConfigFile; measure: SpaceMeter; logger: Logger },
): void {
  const known = deps.config.clusters.map((c) => c.name);
  server.registerTool(
    'etcd_space',
    {
      title: 'What fills etcd',
      description: [
        "What fills one etcd cluster's database: keys and bytes (key + value) per Kubernetes resource (`configmaps`; a custom resource as `<resource>.<group>`), per namespace within the top resources, the largest objects, and writes per second per resource over a few seconds.",
        'Use it for a db-quota (NOSPACE) or db-fragmentation finding, or "why is etcd so big?". Also revision and compactRevision (0 if never compacted), database size, in-use size and quota.',
        'It reads the keyspace from a follower (never the leader), serializable and rate-limited (5 MB/s by default), so it takes seconds to minutes on a large database; maxSeconds bounds it, and scan.complete false says the bytes are partial.',
        'Read-only.',
      ].join(' '),
      inputSchema: spaceInput(known),
      outputSchema: spaceOutput,
      annotations: { ...READ_ONLY, title: 'What fills etcd' },
    },
    (args, extra) =>
      runTool('etcd_space', extra, deps.logger, async () => {
        const cluster = findCluster(deps.config, args.cluster);
        const report = await deps.measure(cluster, {
          signal: extra.signal,
          maxScanSeconds: args.maxSeconds,
          ...progressOption(extra),
        });
        return structuredResult(summarizeSpace(report), report);
      }),
  );
}

/** Progress notifications (bytes read of the expected) for a client that asked for them. */
function progressOption(extra: ToolExtra): Pick<SpaceRunOptions, 'onProgress'> {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return {};
  let lastMs = 0;
  return {
    onProgress: (p) => {
      if (p.phase !== 'reading' || Date.now() - lastMs < 1000) return;
      lastMs = Date.now();
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken,
            progress: p.bytesRead,
            total: Math.max(p.bytesRead, p.expectedBytes),
            message: `${formatBytes(p.bytesRead)} read`,
          },
        })
        .catch(() => undefined);
    },
  };
}

/** A few lines for a model; the JSON has everything. */
export function summarizeSpace(r: SpaceReport): string {
  const top = r.byResource
    .slice(0, 5)
    .map((x) => `${x.resource}: ${x.keys} keys, ${formatBytes(x.bytes)}`)
    .join('; ');
  const largest = r.largest[0]
    ? `Largest object: ${r.largest[0].key} (${formatBytes(r.largest[0].bytes)}).`
    : '';
  return [spaceHeadline(r), `Top resources: ${top || 'none'}.`, largest, churnWords(r), scanWords(r)]
    .filter(Boolean)
    .join('\n');
}

/** A snapshot's answer for a model: damage first, then the revision, keys and what fills it. */
export function summarizeSnapshot(r: SnapshotReport): string {
  const s = r.snapshot;
  const hash =
    s.hashOk === false
      ? 'DAMAGED: its SHA-256 trailer does not match its bytes (a byte changed after etcdctl snapshot save wrote it); the breakdown may be wrong: take the snapshot again.'
      : s.hashOk === null
        ? 'No SHA-256 trailer (a member db): integrity not checked.'
        : 'SHA-256 trailer ok.';
  const top = r.space.byResource
    .slice(0, 5)
    .map((x) => `${x.resource}: ${x.keys} keys, ${formatBytes(x.bytes)}`)
    .join('; ');
  const largest = r.space.largest[0];
  return [
    hash,
    `Snapshot: revision ${s.revision}, ${s.totalKeys} keys, ${formatBytes(s.sizeBytes)} file; keys and values ${formatBytes(r.space.totalBytes)}.`,
    `Top resources: ${top || 'none'}.`,
    ...(largest ? [`Largest object: ${largest.key} (${formatBytes(largest.bytes)}).`] : []),
  ].join('\n');
}
