import type { ClusterConfig } from '../config/schema.js';

/**
 * The hosts of a cluster's configured endpoints (`127.0.0.1`), to count our own load on them. Kept
 * per config object: every run asks, twice, and a config is never changed in place.
 */
export function hostsOf(cluster: ClusterConfig): string[] {
  let hosts = hostsByCluster.get(cluster);
  if (!hosts) {
    hosts = parseHosts(cluster);
    hostsByCluster.set(cluster, hosts);
  }
  return hosts;
}

const hostsByCluster = new WeakMap<ClusterConfig, string[]>();

function parseHosts(cluster: ClusterConfig): string[] {
  return [
    ...new Set(
      (cluster.etcd.endpoints ?? []).flatMap((e) => {
        try {
          return [new URL(e).hostname];
        } catch {
          return [];
        }
      }),
    ),
  ];
}

interface RunPeak {
  hosts: string[];
  runs: number;
  sameHostRuns: number;
}

/** Runs in flight, and for each the most runs (in all, and on its own hosts) seen during it. */
export function createRunLoad() {
  const live = new Set<RunPeak>();
  const shares = (a: RunPeak, b: RunPeak) => a.hosts.some((h) => b.hosts.includes(h));
  const refresh = () => {
    for (const run of live) {
      run.runs = Math.max(run.runs, live.size);
      const same = [...live].filter((o) => o !== run && shares(o, run)).length;
      run.sameHostRuns = Math.max(run.sameHostRuns, same);
    }
  };
  return {
    begin(hosts: string[]): () => RunPeak {
      const run: RunPeak = { hosts, runs: 0, sameHostRuns: 0 };
      live.add(run);
      refresh();
      return () => {
        live.delete(run);
        return run;
      };
    },
    /** Other runs in flight now on any of these hosts. */
    sameHostRuns(hosts: string[]): number {
      return [...live].filter((r) => r.hosts.some((h) => hosts.includes(h))).length - 1;
    },
  };
}
