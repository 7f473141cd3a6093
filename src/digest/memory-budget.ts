import { getHeapStatistics } from 'node:v8';

/**
 * Bounds the clusters a worker process diagnoses at once by the memory they hold, not by a count:
 * every digest and `digest-part` job of the process draws on one budget, so four parts running
 * side by side do not each start their own hundreds of clusters. A cluster's cost is an estimate
 * from its member count (see MEMBER_COST_BYTES); one cluster dearer than the whole budget still
 * runs, alone. Waiters are served in order, so a large cluster is not starved by small ones.
 */
export interface MemoryBudget {
  run<T>(costBytes: number, fn: () => Promise<T>): Promise<T>;
  /** Bytes held by the runs in flight now, and clusters in flight (for tests and logs). */
  inUse(): { bytes: number; runs: number };
  readonly budgetBytes: number;
}

/**
 * What one member costs while its cluster is diagnosed with `keepClients: false`: its gRPC channel
 * (http2 session, grpc-js subchannel and call state), its HTTP agent socket, the /metrics lines
 * the filter keeps and the parsed snapshots, and its share of the report. bench/digest-memory.ts
 * (100 3-member clusters on one lab at once, at load 11-15) measured 218-393 KiB of heap and
 * 289-604 KiB of RSS per member over idle: an estimate near the heap's high end.
 */
export const MEMBER_COST_BYTES = 384 * 1024;
/** A cluster's own share (clients' pool entry, evidence, rules, history writes, its day of minute history). */
export const CLUSTER_COST_BYTES = 128 * 1024;

/** The estimated bytes one cluster of `members` holds while it is diagnosed. */
export function clusterCostBytes(members: number): number {
  return CLUSTER_COST_BYTES + Math.max(1, members) * MEMBER_COST_BYTES;
}

/**
 * The default budget: a sixth of the V8 heap limit (`--max-old-space-size`; 256 MiB in the
 * worker Deployment gives about 43 MiB, 34 clusters of 3 members at once), the rest left to the
 * worker's other jobs, the digest's results and garbage not yet collected. A quarter (51 at once)
 * peaked at 274 MiB RSS on the 1,000-cluster bench from an idle 149 MiB, over the 256 MiB goal;
 * the digest is CPU-bound there, so fewer at once costs little time.
 */
export function defaultBudgetBytes(heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  return Math.max(16 * 1024 * 1024, Math.floor(heapLimitBytes / 6));
}

export function createMemoryBudget(budgetBytes: number, maxRuns = Number.POSITIVE_INFINITY): MemoryBudget {
  let bytes = 0;
  let runs = 0;
  const waiting: Array<{ cost: number; start: () => void }> = [];
  const fits = (cost: number) => runs === 0 || (bytes + cost <= budgetBytes && runs < maxRuns);
  const admit = () => {
    while (waiting.length && fits(waiting[0]?.cost ?? 0)) {
      const next = waiting.shift();
      if (!next) return;
      bytes += next.cost;
      runs += 1;
      next.start();
    }
  };
  return {
    budgetBytes,
    inUse: () => ({ bytes, runs }),
    async run(cost, fn) {
      await new Promise<void>((start) => {
        waiting.push({ cost, start });
        admit();
      });
      try {
        return await fn();
      } finally {
        bytes -= cost;
        runs -= 1;
        admit();
      }
    },
  };
}
