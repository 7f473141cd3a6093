import type { CpuStarveOptions } from './faults.js';
import type { FillOptions, WriteLoadOptions } from './etcd-ops.js';
import type { LabTls } from './lab-tls.js';
import type { LabMember } from './member-plan.js';

/**
 * What a started lab offers its tests: a file of its own, so that etcd-lab.ts (which starts one)
 * and lab-control.ts (which implements the operations) both import it and not each other.
 */
/** A real etcd cluster of child processes, with faults that can be injected for real. */
export interface EtcdLab {
  /** Named etcd-1..etcd-N. */
  readonly members: LabMember[];
  /** Client URLs, in member order. */
  readonly endpoints: string[];
  /** Each member's metrics base URL (no /metrics path), in member order. */
  readonly metricsUrls: string[];
  /** The CA and a client certificate the members accept, in a TLS lab. */
  readonly tls: LabTls | undefined;
  /**
   * Adds a member as a learner (`etcdctl member add --learner`, retried while etcd still calls the
   * cluster unhealthy), starts it, and resolves once it follows the leader. It joins `members`
   * (not `endpoints`, which stay the founding voters).
   */
  addLearner(): Promise<LabMember>;
  /** The member's disk is gone: SIGKILL, then its data dir is deleted. */
  wipe(name: string): Promise<void>;
  /**
   * Starts a member that was removed and added back (by etcd-doctor or etcdctl): same name, URLs and
   * data dir path, an empty data dir, `--initial-cluster-state existing` and this `--initial-cluster`.
   * Resolves once it follows a leader (a learner's /health fails by design).
   */
  join(name: string, initialCluster: string): Promise<void>;
  member(name: string): LabMember;
  /** SIGKILL, and wait until the process has exited. No-op if it is not running. */
  kill(name: string): Promise<void>;
  /** SIGSTOP: the member hangs; its port still accepts TCP but nothing answers. */
  stop(name: string): void;
  cont(name: string): void;
  /**
   * Starts the member again on its data dir (killing it first if it runs). Resolves when /health
   * says true, or when /version has answered for 5 s without quorum; rejects after 20 s.
   */
  restart(name: string): Promise<void>;
  /** Starts the member again on its data dir with its usual flags plus these (`--force-new-cluster`). */
  restartWith(name: string, extraArgs: string[]): Promise<void>;
  /** Delays the member's fsync/fdatasync by `delayMicros` via strace; resolves once strace is attached. */
  slowDisk(name: string, delayMicros: number): Promise<{ stop(): Promise<void> }>;
  /** SIGSTOP for stopMs, SIGCONT for runMs, repeated (at most maxDurationMs, default 5 min); stop() leaves it running. */
  cpuStarve(name: string, opts: CpuStarveOptions): { stop(): Promise<void> };
  /** The leader according to the reachable member with the newest raft term; undefined when none knows one. */
  leaderName(): Promise<string | undefined>;
  moveLeader(toName: string): Promise<void>;
  writeLoad(opts: WriteLoadOptions): Promise<{ puts: number; errors: number }>;
  fill(opts: FillOptions): Promise<{ puts: number; nospace: boolean }>;
  fragment(opts: { bytes: number }): Promise<void>;
  /**
   * Runs etcdctl (ETCDCTL_API=3, clean environment) with every member's --endpoints unless `args`
   * names its own. Never rejects; code 124 means it was killed at timeoutMs (default 10 s).
   */
  etcdctl(
    args: string[],
    opts?: { timeoutMs?: number },
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The member's stderr (zap JSON lines), newest 2 MB, across restarts. */
  logs(name: string): string;
  /** Kills every process the lab started, stops its timers, removes its temp dir. Idempotent. */
  destroy(): Promise<void>;
}
