import { realpath } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { EtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import { READ_ONLY } from './cluster-tools.js';
import { analyzeInput, analyzeOutput } from './schemas.js';
import type { SummarizableReport } from './summarize-report.js';
import { reportResult, runTool, structuredResult } from './tool-result.js';
import { summarizeSnapshot } from './space-tool.js';
import type { SnapshotReport } from '../offline/snapshot/analyze-snapshot.js';

/**
 * The offline analysis (`etcd-doctor analyze <path...>`), handed to the server by whoever wires
 * it: the same rules on collected evidence. Its report has the `--json` shape plus `source` and
 * `timeline`. Without one, the server has no etcd_analyze tool.
 */
export interface OfflineAnalysis {
  analyze(
    paths: string[],
    opts: { signal: AbortSignal },
  ): Promise<(SummarizableReport & object) | SnapshotReport>;
  /**
   * When set, every path must resolve (symlinks followed) inside one of these directories. Over HTTP
   * the caller is remote: without roots it could make etcd-doctor read any file the process can.
   */
  roots?: readonly string[];
}

/** Resolves each path, refusing relative ones, missing ones and, with roots, ones outside them. */
export async function resolveAnalyzePaths(
  paths: readonly string[],
  roots?: readonly string[],
): Promise<string[]> {
  const realRoots = roots ? await Promise.all(roots.map((r) => realpath(r))) : undefined;
  const resolved: string[] = [];
  for (const path of paths) {
    if (!isAbsolute(path))
      throw new EtcdDoctorError(
        'command_invalid',
        `"${path}" is not an absolute path; give the full path on the etcd-doctor host`,
      );
    // With roots the caller is remote: missing and outside get one answer, which says nothing about
    // which files exist on the host (a remote caller must not probe the host's file system).
    const refusal = realRoots
      ? `${path} is not a file etcd-doctor may read (inside ${realRoots.join(', ')})`
      : `${path} does not exist on the etcd-doctor host (or cannot be read)`;
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined || (realRoots && !realRoots.some((root) => isInside(real, root))))
      throw new EtcdDoctorError('command_invalid', refusal);
    resolved.push(real);
  }
  return resolved;
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export function registerAnalyzeTool(
  server: McpServer,
  deps: { analysis: OfflineAnalysis; logger: Logger },
): void {
  const where = deps.analysis.roots?.length ? ` Paths must be inside ${deps.analysis.roots.join(', ')}.` : '';
  server.registerTool(
    'etcd_analyze',
    {
      title: 'Analyze collected etcd evidence',
      description: [
        "Run etcd-doctor's diagnosis rules offline, on evidence already collected and stored on the machine etcd-doctor runs on: a must-gather directory or tarball, a `kubectl cluster-info dump` directory, or etcd and kube-apiserver log files.",
        'Or read an etcd snapshot file (`etcdctl snapshot save` output, or a member\'s member/snap/db), given alone: it returns kind "snapshot", snapshot { revision, hashOk, totalKeys, sizeBytes } and space { byResource, byNamespace, largest } (what fills it); hashOk false means the file is damaged. A truncated or corrupted snapshot is a tool error naming what is wrong.',
        `Use it when the cluster cannot be reached live, or to explain a past incident.${where}`,
        'Returns the same report as etcd_diagnose (findings[0] is the root cause) plus source (what was read) and timeline (dated events). Read-only: files are only read.',
      ].join(' '),
      inputSchema: analyzeInput,
      outputSchema: analyzeOutput,
      annotations: { ...READ_ONLY, openWorldHint: false, title: 'Analyze collected etcd evidence' },
    },
    (args, extra) =>
      runTool('etcd_analyze', extra, deps.logger, async () => {
        const paths = await resolveAnalyzePaths(args.paths, deps.analysis.roots);
        const report = await deps.analysis.analyze(paths, { signal: extra.signal });
        return isSnapshot(report)
          ? structuredResult(summarizeSnapshot(report), report)
          : reportResult(report);
      }),
  );
}

function isSnapshot(report: (SummarizableReport & object) | SnapshotReport): report is SnapshotReport {
  return report.kind === 'snapshot';
}
