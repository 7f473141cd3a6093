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
  /** Waits for room, takes it, and returns the function that gives it back (once). */
  acquire(costBytes: number): Promise<() => void>;
  /** Bytes held by the runs in flight now, and clusters in flight (for tests and logs). */
  inUse(): { bytes: number; runs: number };
  readonly budgetBytes: number;
}

/**
 * What one member costs while its cluster's run is in flight with `keepClients: false`: its gRPC
 * channels (http2 session, grpc-js subchannel and call state), its HTTP agent socket, the /metrics
 * lines the filter keeps and the parsed snapshots, and its share of the report. A run no longer
 * holds them through the metrics window (its first scrapes are taken before it, WINDOW_*), so it
 * holds them for its probes alone. bench/digest-memory.ts (100 3-member clusters' runs at once on
 * one lab, load 11) measured 301 KiB of heap and 260 KiB of RSS per member over the waiting figures.
 */
export const MEMBER_COST_BYTES = 320 * 1024;
/** A cluster's own share (clients' pool entry, evidence, rules, history writes, its day of minute history). */
export const CLUSTER_COST_BYTES = 128 * 1024;

/** The estimated bytes one cluster of `members` holds while it is diagnosed. */
export function clusterCostBytes(members: number): number {
  return CLUSTER_COST_BYTES + Math.max(1, members) * MEMBER_COST_BYTES;
}

/**
 * What one member's kept first scrape costs while its cluster waits out the metrics window
 * (probes/first-scrapes.ts): the parsed snapshot is ~6.5 KiB of heap (2,000 parses of an etcd
 * 3.4 page, measured after a GC; bench/digest-memory.ts: 6 KiB a member with 100 clusters waiting),
 * with its map entry and the waiting promise around it.
 */
export const WINDOW_MEMBER_COST_BYTES = 8 * 1024;
/** A waiting cluster's own share: its closure, timer and day of minute history when watched. */
export const WINDOW_CLUSTER_COST_BYTES = 8 * 1024;

/** The estimated bytes one cluster of `members` holds from its first scrapes to its run. */
export function windowCostBytes(members: number): number {
  return WINDOW_CLUSTER_COST_BYTES + Math.max(1, members) * WINDOW_MEMBER_COST_BYTES;
}

/**
 * The default ceiling on what the digest's clusters in flight hold: whatever the heap, a digest
 * needs no more (a laptop's default heap of several GiB must not mean a digest of a GiB).
 */
export const MAX_DEFAULT_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * The default budget: a sixth of the V8 heap limit (`--max-old-space-size`; 256 MiB in the
 * worker Deployment gives about 43 MiB), at most MAX_DEFAULT_BUDGET_BYTES; the rest is left to the
 * worker's other jobs, the digest's results and garbage not yet collected.
 */
export function defaultBudgetBytes(heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  return Math.min(MAX_DEFAULT_BUDGET_BYTES, Math.max(16 * 1024 * 1024, Math.floor(heapLimitBytes / 6)));
}

/**
 * What one member's first /metrics scrape holds while it is read: the page's text arriving in
 * chunks (~144 KiB a page), the socket's buffers and the undici request. Scrapes are short, but
 * hundreds at once held 100+ MiB of RSS (bench/digest-memory.ts), so they draw on the runs' budget.
 */
export const SCRAPE_MEMBER_COST_BYTES = 192 * 1024;

export function scrapeCostBytes(members: number): number {
  return Math.max(1, members) * SCRAPE_MEMBER_COST_BYTES;
}

/**
 * Clusters ahead of the runs (taking first scrapes, waiting out the window, or ready) per run the
 * budget admits: a 3 s window ahead of runs of ~0.5-1 s keeps the runs fed, while a cluster never
 * waits much longer than its window for a run.
 */
export const AHEAD_PER_RUN = 4;

/** The digest's two budgets in one process: runs in flight, and clusters ahead of them. */
export interface DigestBudgets {
  runs: MemoryBudget;
  windows: MemoryBudget;
}

/**
 * Splits `totalBytes`: an eighth for clusters between their first scrapes and their run (each
 * holds its kept scrapes), the rest for runs and first scrapes. Two budgets, not one: a run never
 * waits behind a window that waits for it. At most AHEAD_PER_RUN clusters per run that fits wait
 * ahead, so the windows do not stretch far past their 3 s while hundreds queue for a run.
 */
export function createDigestBudgets(totalBytes: number, maxRuns = Number.POSITIVE_INFINITY): DigestBudgets {
  const windowBytes = Math.floor(totalBytes / 8);
  const runBytes = totalBytes - windowBytes;
  const runsThatFit = Math.max(1, Math.min(maxRuns, Math.floor(runBytes / clusterCostBytes(3))));
  return {
    runs: createMemoryBudget(runBytes, maxRuns),
    windows: createMemoryBudget(windowBytes, AHEAD_PER_RUN * runsThatFit),
  };
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
  const acquire = async (cost: number): Promise<() => void> => {
    await new Promise<void>((start) => {
      waiting.push({ cost, start });
      admit();
    });
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      bytes -= cost;
      runs -= 1;
      admit();
    };
  };
  return {
    budgetBytes,
    inUse: () => ({ bytes, runs }),
    acquire,
    async run(cost, fn) {
      const release = await acquire(cost);
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}
