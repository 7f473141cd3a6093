import { X509Certificate } from 'node:crypto';
import { formatList } from '../report/format.js';
import type { CheckDepth } from '../contracts/check-depth.js';
import type { EtcdClients, EtcdTlsFiles } from '../clients/etcd-clients.js';
import type { HttpGet, PeerCertificateInfo } from '../clients/http.js';
import type { ClusterConfig, ResolvedCluster } from '../config/schema.js';
import { type AccessCheckOptions, type AccessWhere, checkAccess, issuerCn } from './access-check.js';
import type { AccessProblem } from './access-problem.js';
import { createAlarmsProbe } from './alarms.js';
import { createClockProbe, MAX_SAMPLES } from './clock.js';
import type { ClusterProbeContext } from './cluster-context.js';
import type { Outcome } from './outcome.js';
import { awaitElection, type ElectionOptions } from './election.js';
import type {
  AlarmData,
  ElectionEvidence,
  Evidence,
  MemberEvidence,
  MemberInfo,
  MemberTarget,
  OwnCertificate,
  ProbeRecord,
} from './evidence.js';
import { skipped } from './outcome.js';
import type { MemberProbeContext, ScrapeMemory } from './member-context.js';
import { createMemberHealthProbe } from './member-health.js';
import { hostOf, normalizeUrl, pathOf, sameUrl, toHexId } from './member-ids.js';
import { createMemberListProbe } from './member-list.js';
import { createMemberStatusProbe } from './member-status.js';
import { createMetricsProbe } from './metrics.js';
import { formatSeconds, type Probe, runProbe, shareSignal } from './probe.js';

export interface CollectOptions {
  cluster: ResolvedCluster;
  clients: EtcdClients;
  httpGet: HttpGet;
  /** The certificate a member's TLS port presented to httpGet's connections (clients/http.ts). */
  peerCertificate?: (url: string) => PeerCertificateInfo | undefined;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  timeoutMs: number;
  metricsWindowMs: number;
  /** A watch check: one /metrics scrape per member against the previous check's (member-context.ts). */
  scrapes?: ScrapeMemory;
  /** `health` asks only what `/etcd health` shows; `diagnose` adds /metrics and clocks. */
  depth: CheckDepth;
  onProgress?: (progress: { done: number; total: number; probe: ProbeRecord }) => void;
  /** A member list fetched moments ago (warm health checks reuse it instead of asking again). */
  recentMemberList?: Outcome<MemberInfo[]>;
  /** Aborts every probe of the run (the caller gave up); see runProbe. */
  signal?: AbortSignal;
  /** The TLS files the clients use: the access check presents the same ones. */
  tls?: EtcdTlsFiles | undefined;
  /** Where the cluster's etcd block is in the config, for fixes: `clusters[0].etcd`. */
  etcdPath?: string;
  /** etcd-doctor already probes the same hosts from other runs: send fewer clock samples. */
  busy?: boolean;
  /** Injected for tests of the classification; default checkAccess (DNS, TCP, TLS, GET /version). */
  checkAccess?: (opts: AccessCheckOptions) => Promise<AccessProblem | undefined>;
}

/**
 * The access check runs only after Status failed, and gets at most this long: it is one TCP
 * connection and one GET /version, so a member that needs more is not answering anyway.
 */
export const ACCESS_CHECK_TIMEOUT_MS = 1500;

/**
 * The probe load one diagnosis puts on one member: health (a warm-up on a cold client, then the
 * read), Status, two /metrics scrapes, and the clock's GET /version samples, one at a time, at
 * most MAX_SAMPLES (13): 18 requests in about 3 s, never more than 4 at once. After a failure the
 * access check adds one to three connections. When etcd-doctor already has many runs on the same
 * hosts (a digest), the clock takes at most BUSY_CLOCK_SAMPLES: its round trips are not judged then.
 */
export const FIXED_REQUESTS_PER_MEMBER = 5;
export const MAX_REQUESTS_PER_MEMBER = FIXED_REQUESTS_PER_MEMBER + MAX_SAMPLES;
export const BUSY_CLOCK_SAMPLES = 4;
/**
 * A watch check asks MemberList of one member, and of the others only when it fails or has not
 * answered in this long: two RPCs fewer every interval, for at most this delay behind a hung member.
 */
export const WATCH_HEDGE_MS = 250;

type MemberProbes = ReturnType<typeof memberProbes>;

/** Member probes per depth, in the order they appear in reports (made once a run, shared by its members). */
function memberProbes(opts: CollectOptions) {
  const health = createMemberHealthProbe(opts.timeoutMs);
  const status = createMemberStatusProbe(opts.timeoutMs);
  if (opts.depth === 'health') return { health, status, metrics: undefined, clock: undefined };
  return {
    health,
    status,
    metrics: createMetricsProbe(opts.timeoutMs, opts.metricsWindowMs),
    clock: createClockProbe(opts.timeoutMs),
  };
}

/** How many probes a collection runs for `memberCount` members (for progress messages). */
export function countProbes(depth: CheckDepth, memberCount: number): number {
  return depth === 'health' ? 1 + memberCount * 2 : 2 + memberCount * 4;
}

/**
 * Runs every etcd probe concurrently, each under its own deadline. Nothing here throws:
 * an unreachable or hung member shows up as failure evidence beside everyone else's data.
 */
export async function collectEtcdEvidence(opts: CollectOptions): Promise<Evidence> {
  if (!opts.signal) return collect(opts);
  // Every probe of the run waits on the run's signal at once (14 for 3 members), and one long-lived
  // signal can stand behind many runs (a watch's shutdown): each run listens on it once, and its probes
  // on a signal of the run's own, so Node never warns of a listener leak on stderr.
  const shared = shareSignal(opts.signal, countProbes(opts.depth, opts.cluster.etcd.endpoints.length));
  try {
    return await collect({ ...opts, signal: shared.signal });
  } finally {
    shared.release();
  }
}

async function collect(opts: CollectOptions): Promise<Evidence> {
  const collectedAt = opts.now();
  const records: ProbeRecord[] = [];
  // A member list read moments ago (the warm path) is reused, not probed: one probe fewer, or the
  // progress would end at 13 of 14.
  let total =
    countProbes(opts.depth, opts.cluster.etcd.endpoints.length) -
    (opts.recentMemberList ? 1 : 0) -
    (opts.depth !== 'health' && isWatchCheck(opts) ? 1 : 0);
  const record = (name: string, outcome: Outcome<unknown>): ProbeRecord => {
    const probe = {
      name,
      ok: outcome.ok,
      durationMs: Math.round(outcome.durationMs),
      error: outcome.ok ? null : outcome.failure.message,
    };
    records.push(probe);
    opts.onProgress?.({ done: records.length, total, probe });
    return probe;
  };
  const clusterCtx: ClusterProbeContext = {
    clients: opts.clients,
    httpGet: opts.httpGet,
    now: opts.now,
    ...(isWatchCheck(opts) ? { hedgeMs: WATCH_HEDGE_MS } : {}),
  };
  const runCluster = async <T>(probe: Probe<ClusterProbeContext, T>) => {
    const outcome = await runProbe(probe, clusterCtx, {
      subject: `cluster ${opts.cluster.name}`,
      now: opts.now,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    record(probe.kind, outcome);
    return outcome;
  };

  const configured = opts.cluster.etcd.endpoints.map((endpoint, i) =>
    initialTarget(opts.cluster, endpoint, i),
  );
  const memberListP = opts.recentMemberList
    ? Promise.resolve(opts.recentMemberList)
    : runCluster(createMemberListProbe(opts.timeoutMs));
  // A quick health check, and a watch check every interval, read alarms from Status (each member
  // appends the cluster's active alarms to `errors`, KB §1.5) instead of an Alarm RPC to every
  // member; diagnose asks Alarm itself.
  const alarmsP =
    opts.depth === 'health' || isWatchCheck(opts) ? undefined : runCluster(createAlarmsProbe(opts.timeoutMs));
  // Name members (etcd-2) as soon as the list arrives, while their own probes still run.
  void memberListP.then((list) => {
    for (const target of configured) nameFromList(target, list);
  });
  const probes = memberProbes(opts);
  const configuredP = configured.map((target) => probeMember(target, opts, probes, record, memberListP));

  const memberList = await memberListP;
  const discovered = memberList.ok ? discoverTargets(memberList.data, configured, opts.cluster) : [];
  total += countProbes(opts.depth, discovered.length) - countProbes(opts.depth, 0);
  const discoveredP = discovered.map((target) => probeMember(target, opts, probes, record, memberListP));
  const answered = await Promise.all([...configuredP, ...discoveredP]);
  const { members, election } = await awaitElection(answered, electionOptions(opts, probes, memberList));
  if (election) {
    total += 1;
    record('election', electionOutcome(election));
  }
  const notStarted = memberList.ok ? notStartedMembers(memberList.data, opts) : [];

  return {
    cluster: opts.cluster.name,
    collectedAt,
    memberList,
    alarms: alarmsP ? await alarmsP : alarmsFromStatus(members),
    members: [...members, ...notStarted],
    probes: records,
    timeoutMs: opts.timeoutMs,
    ...(election ? { election } : {}),
    ...(opts.depth !== 'health' && opts.tls ? { ownCertificates: ownCertificates(opts.tls) } : {}),
  };
}

/** The dates of the client certificate and CA etcd-doctor uses for the cluster; unreadable ones are left out. */
function ownCertificates(tls: EtcdTlsFiles): OwnCertificate[] {
  const read = (role: OwnCertificate['role'], pem: Buffer | undefined): OwnCertificate[] => {
    if (!pem) return [];
    try {
      const cert = new X509Certificate(pem);
      const subject = issuerCn(cert, 'subject');
      return [{ role, subject, validTo: new Date(Date.parse(cert.validTo)).toISOString() }];
    } catch {
      return [];
    }
  };
  return [...read('client', tls.certChain), ...read('ca', tls.rootCertificate)];
}

/** The election wait asks Status and the read again with the run's own probes (probes/election.ts). */
function electionOptions(
  opts: CollectOptions,
  probes: MemberProbes,
  memberList: Outcome<MemberInfo[]>,
): ElectionOptions {
  const ask =
    <T>(probe: Probe<MemberProbeContext, T>) =>
    (member: MemberEvidence) =>
      runProbe(probe, memberContext(member.target, opts), {
        subject: () => subjectOf(member.target),
        now: opts.now,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
  return {
    listedVoters: memberList.ok ? memberList.data.filter((m) => !m.isLearner).length : 0,
    timeoutMs: opts.timeoutMs,
    now: opts.now,
    sleep: opts.sleep,
    ...(opts.signal ? { signal: opts.signal } : {}),
    askStatus: ask(probes.status),
    askHealth: ask(probes.health),
  };
}

/** The `election` entry of the probe list: ok when a leader was named within the wait. */
function electionOutcome(election: ElectionEvidence): Outcome<null> {
  const durationMs = election.waitedMs;
  if (election.leaderId) return { ok: true, data: null, durationMs };
  const message = `${formatList(election.leaderless)} still had no leader after ${formatSeconds(durationMs)}`;
  return { ok: false, failure: { kind: 'timeout', message }, durationMs };
}

function initialTarget(cluster: ClusterConfig, endpoint: string, index: number): MemberTarget {
  return {
    name: hostOf(endpoint),
    endpoint,
    metricsUrl: metricsUrlOf(cluster, endpoint, index),
    id: undefined,
    ...(Number.isFinite(index) ? { endpointIndex: index } : {}),
  };
}

/** The /metrics URL of the configured member at `index` (its `metricsUrls` entry, else its client URL's). */
export function metricsUrlOf(cluster: ClusterConfig, endpoint: string, index: number): string {
  return withMetricsPath(cluster.etcd.metricsUrls?.[index] ?? `${endpoint.replace(/\/+$/, '')}/metrics`);
}

/** `http://127.0.0.1:2381` means its /metrics; a URL with a path is taken as given. */
function withMetricsPath(url: string): string {
  return pathOf(url) === '/' ? `${url.replace(/\/+$/, '')}/metrics` : url;
}

/** Members the list knows that the config did not name: probe them too, through their client URL. */
function discoverTargets(
  list: MemberInfo[],
  configured: MemberTarget[],
  cluster: ClusterConfig,
): MemberTarget[] {
  const known = new Set(configured.map((t) => normalizeUrl(t.endpoint)));
  return list.flatMap((member) => {
    const url = member.clientUrls[0];
    if (!url || member.clientUrls.some((u) => known.has(normalizeUrl(u)))) return [];
    known.add(normalizeUrl(url));
    return [
      {
        ...initialTarget(cluster, url, Number.POSITIVE_INFINITY),
        name: member.name || member.id,
        id: member.id,
        isLearner: member.isLearner,
      },
    ];
  });
}

/** "If the member is not started, the name will be an empty string" (rpc.proto, KB §1.5). */
function notStartedMembers(list: MemberInfo[], opts: CollectOptions): MemberEvidence[] {
  return list
    .filter((m) => m.clientUrls.length === 0)
    .map((m) => {
      const target: MemberTarget = {
        name: m.name || `member ${m.id}`,
        endpoint: m.peerUrls[0] ?? '',
        metricsUrl: '',
        id: m.id,
        isLearner: m.isLearner,
      };
      const why = skipped(`${target.name} has not started (no client URLs in the member list)`);
      return {
        target,
        health: why,
        status: why,
        metrics: opts.depth === 'health' ? skipped('not asked') : why,
        clock: opts.depth === 'health' ? skipped('not asked') : why,
      };
    });
}

async function probeMember(
  target: MemberTarget,
  opts: CollectOptions,
  probes: MemberProbes,
  record: (name: string, outcome: Outcome<unknown>) => ProbeRecord,
  memberListP: Promise<Outcome<MemberInfo[]>>,
): Promise<MemberEvidence> {
  const ctx = memberContext(target, opts);
  // Status is answered locally, without consensus: when it fails, find out why at once, while
  // the other probes of this member still run.
  let accessP: Promise<AccessProblem | undefined> | undefined;
  const mine: ProbeRecord[] = [];
  const run = async <T>(probe: Probe<MemberProbeContext, T>): Promise<Outcome<T>> => {
    const outcome = await runProbe(probe, ctx, {
      subject: () => subjectOf(target),
      now: opts.now,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    // A cancelled run asks nothing more: no access check after a probe that was cancelled.
    if (probe === probes.status && !outcome.ok && !opts.signal?.aborted)
      accessP = checkMemberAccess(target, opts);
    mine.push(record(`${probe.kind} ${target.name}`, outcome));
    return outcome;
  };
  // The read goes first: it is the slower of the two (it needs the leader), and the run waits for it.
  const [health, status, metrics, clock] = await Promise.all([
    run(probes.health),
    run(probes.status),
    probes.metrics ? run(probes.metrics) : skipped('not asked'),
    probes.clock ? run(probes.clock) : skipped('not asked'),
  ]);
  const list = await memberListP;
  nameFromList(target, list, status.ok ? status.data.memberId : undefined);
  if (status.ok && status.data.isLearner) target.isLearner = true;
  // The clock's GETs went to the client URL: over https, their connection saw its certificate.
  const cert = probes.clock ? opts.peerCertificate?.(target.endpoint) : undefined;
  const member: MemberEvidence = { target, health, status, metrics, clock, ...(cert ? { cert } : {}) };
  const access = health.ok ? undefined : await accessP;
  if (!access) return member;
  const classified = withAccess(member, access);
  // The JSON `probes` list says the same as the members: our access, not a dead member.
  if (access.ours)
    for (const r of mine)
      if (!r.ok) r.error = classified.status.ok ? r.error : classified.status.failure.message;
  return classified;
}

function memberContext(target: MemberTarget, opts: CollectOptions): MemberProbeContext {
  return {
    target,
    clients: opts.clients.forEndpoint(target.endpoint),
    httpGet: opts.httpGet,
    now: opts.now,
    sleep: opts.sleep,
    metricsWindowMs: opts.metricsWindowMs,
    ...(opts.scrapes ? { scrapes: opts.scrapes } : {}),
    // A watch check is cheap by design: few clock samples, as on a busy digest. The digest's first
    // scrapes change only where the window starts, not the clock's samples.
    clockSamples: isWatchCheck(opts)
      ? Math.min(BUSY_CLOCK_SAMPLES, opts.scrapes?.clockSamples ?? BUSY_CLOCK_SAMPLES)
      : opts.busy
        ? BUSY_CLOCK_SAMPLES
        : MAX_SAMPLES,
  };
}

/** A watch check: one scrape against the previous check's (not a digest's first scrapes). */
function isWatchCheck(opts: CollectOptions): boolean {
  return opts.scrapes !== undefined && !opts.scrapes.firstScrapes;
}

function checkMemberAccess(target: MemberTarget, opts: CollectOptions): Promise<AccessProblem | undefined> {
  const where: AccessWhere = {
    etcdPath: opts.etcdPath ?? `cluster ${opts.cluster.name}: etcd`,
    endpointIndex: target.endpointIndex,
  };
  const check = opts.checkAccess ?? checkAccess;
  return check({
    endpoint: target.endpoint,
    tls: opts.tls,
    timeoutMs: Math.min(opts.timeoutMs, ACCESS_CHECK_TIMEOUT_MS),
    where,
  }).catch(() => undefined);
}

/**
 * A member we could not reach because of our own access gets that reason on every probe, so no
 * message calls it down; for other problems (refused, hung) the probes keep their own words.
 */
function withAccess(member: MemberEvidence, access: AccessProblem): MemberEvidence {
  if (!access.ours) return { ...member, access };
  const failure = {
    kind: 'access' as const,
    message: `${subjectOf(member.target)}: ${access.reason}: ${access.fix}`,
  };
  const replace = <T>(o: Outcome<T>): Outcome<T> =>
    o.ok || o.failure.kind === 'skipped' ? o : { ok: false, failure, durationMs: o.durationMs };
  return {
    ...member,
    access,
    health: replace(member.health),
    status: replace(member.status),
    metrics: replace(member.metrics),
    clock: replace(member.clock),
  };
}

/** Names the member (etcd-2) from the member list, by member id or by client URL. */
function nameFromList(target: MemberTarget, list: Outcome<MemberInfo[]>, memberId?: string): void {
  const match = list.ok
    ? list.data.find(
        (m) => (memberId && m.id === memberId) || m.clientUrls.some((u) => sameUrl(u, target.endpoint)),
      )
    : undefined;
  if (match?.name) target.name = match.name;
  target.id = match?.id ?? memberId ?? target.id;
}

function subjectOf(target: MemberTarget): string {
  return target.name === hostOf(target.endpoint) ? target.endpoint : `${target.name} (${target.endpoint})`;
}

/** `memberID:8e9e05c52164694d alarm:NOSPACE` strings in Status.errors, as alarm evidence. */
export function alarmsFromStatus(members: MemberEvidence[]): Outcome<AlarmData[]> {
  const answered = members.filter((m) => m.status.ok);
  if (answered.length === 0)
    return { ok: false, failure: { kind: 'skipped', message: 'no member answered Status' }, durationMs: 0 };
  const alarms = new Map<string, AlarmData>();
  for (const m of answered) {
    for (const error of m.status.ok ? m.status.data.errors : []) {
      const match = /memberID:(\w+) alarm:(NOSPACE|CORRUPT)/.exec(error);
      if (match?.[1] && (match[2] === 'NOSPACE' || match[2] === 'CORRUPT')) {
        const memberId = /^\d+$/.test(match[1]) ? toHexId(match[1]) : match[1];
        alarms.set(`${memberId}/${match[2]}`, { memberId, alarm: match[2] });
      }
    }
  }
  return { ok: true, data: [...alarms.values()], durationMs: 0 };
}
