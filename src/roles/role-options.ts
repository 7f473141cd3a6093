import type { Readable, Writable } from 'node:stream';
import type { ChatAdapter } from '../chat/adapter.js';
import type { ChatCommand } from '../commands/command.js';
import type { DiagnoseLimits } from '../commands/diagnose-limits.js';
import type { Env } from '../config/env.js';
import type { ConfigFile } from '../config/schema.js';
import type { DigestService } from '../digest/digest-service.js';
import type { Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { EnqueueOutcome } from '../queue/job-queue.js';
import type { JobData } from '../queue/job-schemas.js';
import type { RemediationSettings } from '../remediation/settings.js';
import type { RedisTarget } from '../config/redis-target.js';
import type { SpaceRunOptions } from '../space/measure-space.js';
import type { Secret } from '../secret.js';

/**
 * One process type per role (DESIGN.md): the chat side, the workers, or both; and the analyzer, the
 * analyze queue of shared files alone, in pods with no cluster credentials (roles/analyzer.ts).
 */
export type Role = 'bot' | 'worker' | 'serve' | 'analyzer';

/** The roles that receive chat (commands, clicks, files): the others only answer queued jobs. */
export function receivesChat(role: Role): boolean {
  return role === 'bot' || role === 'serve';
}

/** Timings; the defaults suit production, tests shorten them. */
export interface RoleTuning {
  enqueueTimeoutMs?: number;
  attempts?: number;
  backoffMs?: number;
  concurrency?: number;
  jobTimeoutMs?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  progressIntervalMs?: number;
  /** `/etcd diagnose` rate limits (per user, per cluster, window). */
  diagnoseLimits?: Partial<DiagnoseLimits>;
  /** Digests repeat every this many ms instead of daily (tests, demos). */
  digestEveryMs?: number;
  /** Maintenance windows are checked every this many ms instead of when each opens (tests, demos). */
  maintenanceEveryMs?: number;
  /** Remediation timings (defragment pause, waits, poll interval) and defaults. */
  remediation?: Partial<RemediationSettings>;
  /** Overall time for one remediation job. Default 30 min. */
  remediationTimeoutMs?: number;
  /**
   * On stop, running jobs get this long to finish; then the worker hands the read-only ones back to
   * the queue, where another worker takes them at once. Default 25 s, inside Kubernetes' 30 s grace.
   */
  shutdownTimeoutMs?: number;
  /** Over every cluster's `space` settings (a shorter churn window, a slower scan). */
  space?: Pick<SpaceRunOptions, 'bytesPerSecond' | 'maxScanSeconds' | 'churnSeconds'>;
}

/**
 * What the parts of one process share: built once (roles/run-role.ts, roles/shell.ts) and passed
 * whole to startRoles and to the HTTP features beside it (MCP), instead of field by field.
 */
export interface RoleSetup {
  config: ConfigFile;
  redisUrl: RedisTarget;
  /** Redis key prefix of the queue and job state; separate deployments (and tests) use their own. */
  queuePrefix: string;
  logger: Logger;
  tuning?: RoleTuning;
  /** This process's Prometheus metrics (jobs, probes, findings, queue depth), served on /metrics. */
  metrics?: Metrics;
  /**
   * The whole process env as main.ts got it, for the names the config points at (the ticket
   * credential named by `tickets.credentialEnv`). The parsed env (config/env.ts) is `Env`.
   */
  processEnv?: Record<string, string | undefined>;
  /**
   * REMEDIATION_SIGNING_KEY: signs plans and remediation jobs (state/record-signer.ts). The bot and
   * the workers must share it; without one, startRoles makes a key of this process only.
   */
  signingKey?: Secret;
}

export interface StartRolesOptions extends RoleSetup {
  role: Role;
  chat: ChatAdapter;
  doctor?: Doctor;
  readFileBuffer?: (path: string) => Promise<Buffer>;
  commands?: readonly ChatCommand[];
  /** The clock for digest slots, history and alert windows. Default Date.now. */
  now?: () => number;
}

export interface RunningRoles {
  /** Resolves once every job this process queued has answered, or after `maxWaitMs`. */
  idle(maxWaitMs?: number): Promise<void>;
  /** Redis answers PING within 500 ms (for /readyz). */
  redisReady(): Promise<boolean>;
  /** Queues a job (bot and serve roles): POST /alertmanager uses it. */
  enqueue: ((data: JobData) => Promise<EnqueueOutcome>) | undefined;
  /** Digest subscriptions and their schedulers. */
  digests: DigestService;
  stop(): Promise<void>;
}

export const DEFAULT_QUEUE_PREFIX = 'etcd-doctor';

/** `etcd-doctor bot|worker|serve` as a process (roles/run-role.ts); the Redis target comes from `env`. */
export interface RunRoleOptions extends Omit<RoleSetup, 'redisUrl'> {
  role: Role;
  /** The env as parsed (config/env.ts): Slack tokens, PORT, REDIS_URL, the HTTP tokens. */
  env: Env;
  stdin: Readable;
  stdout: Writable;
  interactive: boolean;
  /** Resolves when the process is asked to stop (SIGINT, SIGTERM). */
  shutdown: AbortSignal;
}

/** One Slack role process (roles/slack.ts): the parsed env for the chat and HTTP, the setup for the rest. */
export interface RoleProcess {
  role: Role;
  env: Env;
  setup: RoleSetup;
  /** Resolves when the process is asked to stop (SIGINT, SIGTERM). */
  shutdown: AbortSignal;
}
