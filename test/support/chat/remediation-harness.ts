import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createAuditLog, type AuditRecord } from '../../../src/state/audit-log.js';
import {
  createMemoryAdapter,
  type MemoryAdapter,
  type MemoryMessage,
} from '../../../src/chat/memory/memory-adapter.js';
import type { MessageRef } from '../../../src/chat/adapter.js';
import { type ConfigFile, configFileSchema } from '../../../src/config/schema.js';
import type { ActionId } from '../../../src/diagnosis/finding.js';
import type { EtcdLab } from '../lab/etcd-lab.js';
import { type Logger, silentLogger } from '../../../src/logger.js';
import type { RemediateJob } from '../../../src/queue/job-schemas.js';
import type { RemediationSettings } from '../../../src/remediation/settings.js';
import type { ChatView, TextView, ViewButton } from '../../../src/report/chat-view.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { buttonValue, createPlanStore } from '../../../src/state/plan-store.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../redis/redis-prefix.js';
import { TEST_SIGNING_KEY, testSigner } from '../redis/signing-key.js';
import { signedJob } from '../../../src/remediation/job-signature.js';

export const ALICE = 'U0ALICE';
export const MALLORY = 'U0MALLORY';
export const BOB_IN_GROUP = 'U0BOB';
export const ONCALL_GROUP = 'S0ONCALL';

/** Fast timings for tests: no 36 s pauses between members. */
export const FAST: Partial<RemediationSettings> = {
  healthWaitMs: 15_000,
  pollMs: 100,
  etcdCallTimeoutMs: 30_000,
  manifestHoldSeconds: 1,
  restartWaitMs: 5000,
  benchmarkTimeoutMs: 5000,
  lockTtlMs: 1500,
};

export interface Harness {
  chat: MemoryAdapter;
  roles: RunningRoles;
  redis: Redis;
  prefix: string;
  snapshotDir: string;
  /** The chat's user groups, live: a test may change who is in a group. */
  groups: Record<string, string[]>;
  /** Puts a job on the queue directly, as a press long ago would have left it (signed, as the bot signs one). */
  enqueue(job: RemediateJob): Promise<void>;
  /** A button backed by a plan saved as the worker saves them (for actions no finding offered). */
  button(
    action: ActionId,
    args: Record<string, string>,
    opts?: { createdAt?: number; context?: Record<string, string> },
  ): Promise<ViewButton>;
  /** Some message to press buttons on. */
  anchor(): Promise<MessageRef>;
  audit(): Promise<AuditRecord[]>;
  close(): Promise<void>;
}

export function labCluster(lab: EtcdLab, extra: Record<string, unknown> = {}) {
  return { name: 'local', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls }, ...extra };
}

export interface HarnessOptions {
  /** Awaited after every post and update of the chat (see MemoryAdapterOptions.onChange). */
  onChange?: (message: MemoryMessage) => void | Promise<void>;
  logger?: Logger;
  settings?: Partial<RemediationSettings>;
  env?: Record<string, string>;
  /** The roles' clock (maintenance windows, digests); default Date.now. */
  now?: () => number;
  /** Check maintenance windows every this many ms (RoleTuning.maintenanceEveryMs). */
  maintenanceEveryMs?: number;
  /**
   * The probes' timeout (default 1000 ms, for fast refusals). A test that needs the diagnosis to
   * tell one member down from a lost quorum on a busy shared host gives it the production 3 s.
   */
  probeTimeoutMs?: number;
}

export async function startHarness(
  clusters: unknown[],
  name: string,
  opts: HarnessOptions = {},
): Promise<Harness> {
  const prefix = testPrefix(name);
  const snapshotDir = await mkdtemp(join(tmpdir(), 'etcd-doctor-snap-'));
  const config: ConfigFile = configFileSchema.parse({
    clusters,
    probes: { timeoutMs: opts.probeTimeoutMs ?? 1000, metricsWindowMs: 300 },
  });
  const groups: Record<string, string[]> = { [ONCALL_GROUP]: [BOB_IN_GROUP] };
  const chat = createMemoryAdapter({
    userGroups: groups,
    ...(opts.onChange ? { onChange: opts.onChange } : {}),
  });
  const roles = await startRoles({
    role: 'serve',
    chat,
    config,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: opts.logger ?? silentLogger,
    tuning: {
      remediation: { ...FAST, snapshotDir, ...opts.settings },
      attempts: 1,
      stalledIntervalMs: 5000,
      ...(opts.maintenanceEveryMs ? { maintenanceEveryMs: opts.maintenanceEveryMs } : {}),
    },
    ...(opts.now ? { now: opts.now } : {}),
    processEnv: { FAKE_TICKET_TOKEN: 'secret-token', ...opts.env },
    signingKey: TEST_SIGNING_KEY,
  });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const plans = createPlanStore(redis, prefix, testSigner);
  return {
    chat,
    roles,
    redis,
    prefix,
    snapshotDir,
    groups,
    async enqueue(job) {
      if (!roles.enqueue) throw new Error('no queue in this role');
      await roles.enqueue(signedJob(testSigner, job));
    },
    async button(action, args, opts = {}) {
      const id = await plans.save({
        action,
        cluster: 'local',
        args,
        label: action,
        channel: 'C0MEMORY',
        createdAt: opts.createdAt ?? Date.now(),
        ...(opts.context ? { context: opts.context } : {}),
      });
      return { action, label: action, value: buttonValue(id), finding: null };
    },
    anchor: () => chat.post({ channel: 'C0MEMORY' }, { kind: 'text', tone: 'info', lines: ['anchor'] }),
    audit: () => createAuditLog(redis, prefix).read({}),
    async close() {
      await roles.stop();
      await purgePrefix(prefix);
      redis.disconnect();
      await rm(snapshotDir, { recursive: true, force: true });
    },
  };
}

export function textOf(view: ChatView | undefined): string {
  return view?.kind === 'text' ? view.lines.join('\n') : '';
}

export function runItButton(view: ChatView | undefined): ViewButton {
  const b = (view as TextView | undefined)?.buttons?.[0];
  if (!b) throw new Error(`no Run it button in: ${textOf(view)}`);
  return b;
}

/** The thread message of a finished remediation ("ran … finished in …"). */
export function finished(chat: MemoryAdapter): MemoryMessage | undefined {
  return chat.messages.find((m) => /ran .*: (finished|refused|failed) in/.test(m.text));
}
