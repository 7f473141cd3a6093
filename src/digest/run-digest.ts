import { randomUUID } from 'node:crypto';
import type { DigestChartPoster } from '../charts/post-chart.js';
import type { ChatAdapter, MessageRef } from '../chat/adapter.js';
import { channelAllows } from '../config/channels.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import type { HistoryStore } from '../state/history-store.js';
import type { Logger } from '../logger.js';
import type { DigestJob, DigestPartJob } from '../queue/job-schemas.js';
import { type ChildJobs, isParked } from '../queue/child-jobs.js';
import { textView } from '../report/chat-view.js';
import { chunkBy, groupLines } from './chunk.js';
import { briefLines, type ClusterOutcome, digestMessages, sortOutcomes, statusOf } from './digest-view.js';
import { mapConcurrent } from '../map-concurrent.js';
import {
  type ClusterDiagnosisDeps,
  diagnoseClusters,
  MAX_THREAD_REPORTS,
  type PartOutcome,
} from './diagnose-clusters.js';
import { createDigestBudgets, defaultBudgetBytes, type MemoryBudget } from './memory-budget.js';
import type { MinuteHistory } from '../state/minute-history.js';
import type { ScrapeMemory } from '../probes/member-context.js';
import { formatTimeOfDay } from './schedule.js';
import { DEFAULT_PART_SIZE } from './part-slots.js';
import type { Subscription, SubscriptionStore } from '../state/subscriptions.js';

export interface DigestRunnerDeps {
  /**
   * A Doctor that records every diagnosis in `history` (history/doctor-for.ts: the worker's and
   * `digest --now`'s roles); `cluster` gives member counts for the budget, `firstScrapes` lets unwatched clusters wait out their windows without connections.
   */
  doctor: Pick<Doctor, 'run' | 'clusterNames'> & Partial<Pick<Doctor, 'cluster' | 'firstScrapes'>>;
  history: Pick<HistoryStore, 'samples'>;
  subscriptions: Pick<SubscriptionStore, 'get' | 'claimSlot' | 'markSent' | 'releaseSlot'>;
  chat: Pick<ChatAdapter, 'post'>;
  /** `slack.allowedChannels` (config/channels.ts): a digest shows only the clusters its channel may see. */
  allowedIn: (cluster: string, channel: string) => boolean;
  logger: Logger;
  workerId: string;
  now: () => number;
  /**
   * At most this many clusters diagnosed at once in this process, whatever the memory budget
   * allows. Default: no cap beyond the budget.
   */
  concurrency?: number;
  /**
   * Bytes the clusters diagnosed at once may hold, in this process (every digest and `digest-part`
   * job shares it; memory-budget.ts). Default: a sixth of the V8 heap limit, at most 64 MiB.
   */
  memoryBudgetBytes?: number;
  /** The budget itself, when the caller shares one (tests watch it). */
  budget?: MemoryBudget;
  /** The watch's minute history: a watched cluster's trends of the day, and one scrape per member. */
  minutes?: Pick<MinuteHistory, 'day'>;
  /** The watch's kept scrapes per cluster, read only (the window of the digest's one scrape). */
  watchScrapes?: (cluster: string) => ScrapeMemory;
  /**
   * A digest of more clusters than this hands them out to the workers as `digest-part` jobs of this
   * many each (when it runs on a worker), so a second worker process shares the work. Default 50.
   */
  partSize?: number;
  /** A slot sent later than this after its time is marked late. Default 10 min. */
  lateAfterMs?: number;
  /** Posts a chart of the clusters with a problem into the digest's thread, last (src/charts). */
  postChart?: DigestChartPoster;
}

export type DigestResult =
  | {
      sent: true;
      channel: string;
      slotMs: number | undefined;
      late: boolean;
      clusters: number;
      root: MessageRef;
    }
  | { sent: false; channel: string; slotMs: number | undefined; reason: 'already-sent' | 'unsubscribed' };

export type { PartOutcome };

/** History reads at once when the outcomes are collected (each a few small samples). */
const HISTORY_READS = 50;
const HISTORY_DAYS_MS = 9 * 24 * 3600_000;

/** How long a slot's claim holds while the digest is built and posted. */
const SLOT_CLAIM_LEASE_MS = 600_000;

/**
 * One channel's digest: diagnose its clusters concurrently, compare with history, post one message
 * with a line per cluster and the unhealthy ones' details in its thread. A scheduled slot is claimed
 * first (SET NX on `digest:<channel>:<slot>`), so replicas and catch-up never send it twice.
 */
export function createDigestRunner(deps: DigestRunnerDeps) {
  const lateAfterMs = deps.lateAfterMs ?? 10 * 60_000;

  const partSize = deps.partSize ?? DEFAULT_PART_SIZE;
  const clusterDeps = clusterDiagnosisDeps(deps);

  const diagnose = (names: string[]) => diagnoseClusters(clusterDeps, names);

  /** Each diagnosed cluster's history samples, for the digest's trends. */
  const addSamples = (outcomes: PartOutcome[]): Promise<ClusterOutcome[]> =>
    mapConcurrent(outcomes, HISTORY_READS, async (o): Promise<ClusterOutcome> => {
      if (!o.ok) return o;
      const samples = await deps.history.samples(o.cluster, deps.now() - HISTORY_DAYS_MS).catch(() => []);
      return { ...o, samples };
    });

  /**
   * The clusters' outcomes, from this process or from the `digest-part` children. A digest that
   * hands its clusters out parks here (fanOut throws) and is run again when every part has finished.
   */
  const outcomesOf = async (
    job: DigestJob,
    names: string[],
    children: ChildJobs | undefined,
  ): Promise<ClusterOutcome[]> => {
    if (!children || names.length <= partSize) return addSamples(await diagnose(names));
    return addSamples(await outcomesFromParts(job, names, children, partSize));
  };

  async function runDigest(
    job: DigestJob,
    slotMs: number | undefined,
    run: { jobId?: string; children?: ChildJobs } = {},
  ): Promise<DigestResult> {
    const sub = await deps.subscriptions.get(job.channel);
    if (slotMs !== undefined && !sub)
      return { sent: false, channel: job.channel, slotMs, reason: 'unsubscribed' };
    // Named by the job, so the same digest claims its slot again when it comes back to collect its parts.
    const owner = run.jobId ? `digest-job:${run.jobId}` : `${deps.workerId}:${randomUUID()}`;
    if (slotMs !== undefined) {
      const claimed = await deps.subscriptions.claimSlot(job.channel, slotMs, owner, SLOT_CLAIM_LEASE_MS);
      if (!claimed) return { sent: false, channel: job.channel, slotMs, reason: 'already-sent' };
    }
    try {
      // Filtered at send time too: `all` follows the config, and a cluster may be restricted later.
      const visible = deps.doctor.clusterNames().filter((c) => deps.allowedIn(c, job.channel));
      const { names, missing } = clustersOf(sub, visible);
      const outcomes = await outcomesOf(job, names, run.children);
      const now = deps.now();
      const late = slotMs !== undefined && now - slotMs > lateAfterMs;
      const scheduleText = sub ? `${formatTimeOfDay(sub)} ${sub.tz}` : undefined;
      const { root, overflow } = digestMessages(outcomes, { slotMs, scheduleText, late, missing }, now);
      const ref = await deps.chat.post({ channel: job.channel }, root);
      if (slotMs !== undefined) await deps.subscriptions.markSent(job.channel, slotMs);
      await postThread(deps.chat, ref, outcomes, overflow).catch((err: unknown) =>
        deps.logger.warn({ channel: job.channel, err: describeError(err) }, 'digest thread incomplete'),
      );
      const diagnosed = sortOutcomes(outcomes).flatMap((o) => (o.ok ? [o] : []));
      await deps.postChart?.({ channel: ref.channel, thread: ref }, diagnosed, deps.logger);
      deps.logger.info({ channel: job.channel, slotMs, late, clusters: names.length }, 'digest sent');
      return { sent: true, channel: job.channel, slotMs, late, clusters: names.length, root: ref };
    } catch (err) {
      if (slotMs !== undefined && !isParked(err))
        await deps.subscriptions.releaseSlot(job.channel, slotMs, owner).catch(() => undefined);
      throw err;
    }
  }

  /** A `digest-part` job: diagnose its clusters and return the outcomes for the digest to collect. */
  const runPart = (job: DigestPartJob): Promise<PartOutcome[]> => diagnose(job.clusters);

  return Object.assign(runDigest, { runPart });
}

/** What each cluster's diagnosis needs; the budget is this runner's (one per worker process). */
function clusterDiagnosisDeps(deps: DigestRunnerDeps): ClusterDiagnosisDeps {
  const budgets = createDigestBudgets(
    deps.memoryBudgetBytes ?? defaultBudgetBytes(),
    deps.concurrency ?? Number.POSITIVE_INFINITY,
  );
  return {
    doctor: deps.doctor,
    now: deps.now,
    budget: deps.budget ?? budgets.runs,
    windows: budgets.windows,
    ...(deps.minutes ? { minutes: deps.minutes } : {}),
    ...(deps.watchScrapes ? { watchScrapes: deps.watchScrapes } : {}),
  };
}

/**
 * Hands the clusters out as `digest-part` child jobs (the digest parks: fanOut throws) and, when
 * they have all finished, collects their outcomes; a part that failed for good leaves its clusters
 * unchecked.
 */
async function outcomesFromParts(
  job: DigestJob,
  names: string[],
  children: ChildJobs,
  partSize: number,
): Promise<PartOutcome[]> {
  if (!job.fanOut) {
    const parts = chunkBy(names, partSize).map(
      (clusters): DigestPartJob => ({
        v: 1,
        kind: 'digest-part',
        clusters,
        channel: job.channel,
        user: job.user,
        requestedAt: job.requestedAt,
      }),
    );
    await children.fanOut(parts, { ...job, fanOut: { parts: parts.length } });
  }
  const { values, failures } = await children.results();
  const byCluster = new Map<string, PartOutcome>();
  for (const o of values.flatMap((v) => (Array.isArray(v) ? v : [])))
    if (isPartOutcome(o)) byCluster.set(o.cluster, o);
  // A part that failed for good (its worker died twice) leaves its clusters unchecked, not the digest.
  const lost = `its share of the digest did not finish${failures[0] ? ` (${failures[0]})` : ''}`;
  return names.map((cluster) => byCluster.get(cluster) ?? { cluster, ok: false, reason: lost });
}

/** The digest's thread: full reports for the first unhealthy clusters, brief lines for the rest. */
async function postThread(
  chat: DigestRunnerDeps['chat'],
  root: MessageRef,
  outcomes: ClusterOutcome[],
  overflow: string[],
): Promise<void> {
  const thread = { channel: root.channel, thread: root };
  const unhealthy = sortOutcomes(outcomes).filter((o) => statusOf(o) !== 'healthy');
  for (const o of unhealthy.slice(0, MAX_THREAD_REPORTS)) {
    await chat.post(
      thread,
      o.ok ? { kind: 'report', report: o.report, buttons: [] } : textView(briefLines(o), 'warning'),
    );
  }
  const rest = unhealthy.slice(MAX_THREAD_REPORTS).flatMap(briefLines);
  for (const chunk of groupLines([...rest, ...overflow], 3500)) await chat.post(thread, textView(chunk));
}

/** Child results come back from Redis as JSON: keep the ones shaped like an outcome. */
function isPartOutcome(v: unknown): v is PartOutcome {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.cluster === 'string' &&
    (o.ok === true ? typeof o.report === 'object' && o.report !== null : typeof o.reason === 'string') &&
    (o.day === undefined || (typeof o.day === 'object' && o.day !== null))
  );
}

/** The subscription's clusters that the config still has; every cluster for `all` or no subscription. */
function clustersOf(sub: Subscription | undefined, known: string[]): { names: string[]; missing: string[] } {
  if (!sub || sub.clusters === 'all') return { names: known, missing: [] };
  return {
    names: sub.clusters.filter((c) => known.includes(c)),
    missing: sub.clusters.filter((c) => !known.includes(c)),
  };
}

/** `channelAllows` by cluster name, for a config file (an unknown cluster is never shown). */
export function channelAllowsByName(config: ConfigFile, cluster: string, channel: string): boolean {
  const found = clustersByName(config).get(cluster);
  return found !== undefined && channelAllows(found, channel);
}

/** The config's clusters by name, built once per config: a digest asks for each of its clusters (a find each was quadratic). */
const byNameCache = new WeakMap<ConfigFile, Map<string, ConfigFile['clusters'][number]>>();
function clustersByName(config: ConfigFile): Map<string, ConfigFile['clusters'][number]> {
  let byName = byNameCache.get(config);
  if (!byName) {
    // The first of a name wins, as find() did.
    byName = new Map();
    for (const c of config.clusters) if (!byName.has(c.name)) byName.set(c.name, c);
    byNameCache.set(config, byName);
  }
  return byName;
}
