import type { AccessProblem } from './access-problem.js';
import { createClockProbe, MAX_SAMPLES } from './clock.js';
import { BUSY_CLOCK_SAMPLES, type CollectOptions, isWatchCheck } from './collect-options.js';
import type { MemberEvidence, MemberInfo, MemberTarget, ProbeRecord } from './evidence.js';
import { checkMemberAccess, withAccess } from './member-access.js';
import type { MemberProbeContext } from './member-context.js';
import { createMemberHealthProbe } from './member-health.js';
import { type HttpHealthData, readHttpHealth } from './http-health.js';
import { createMemberStatusProbe } from './member-status.js';
import { nameFromList, subjectOf } from './member-targets.js';
import { createMetricsProbe } from './metrics.js';
import { type Outcome, skipped } from './outcome.js';
import { type Probe, runProbe } from './probe.js';

export type MemberProbes = ReturnType<typeof memberProbes>;

/** Member probes per depth, in the order they appear in reports (made once a run, shared by its members). */
export function memberProbes(opts: CollectOptions) {
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

export async function probeMember(
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
  // The read failed on a member that answers Status: etcd's own checks say which part fails.
  const httpHealth =
    !health.ok && status.ok && !opts.signal?.aborted ? await askHttpHealth(target, opts) : undefined;
  const member: MemberEvidence = {
    target,
    health,
    status,
    metrics,
    clock,
    ...(cert ? { cert } : {}),
    ...(httpHealth ? { httpHealth } : {}),
  };
  const access = health.ok ? undefined : await accessP;
  if (!access) return member;
  const classified = withAccess(member, access);
  // The JSON `probes` list says the same as the members: our access, not a dead member.
  if (access.ours)
    for (const r of mine)
      if (!r.ok) r.error = classified.status.ok ? r.error : classified.status.failure.message;
  return classified;
}

/** /readyz and /livez (3.6+) or /health, within the run's per-call timeout; undefined when neither answers. */
async function askHttpHealth(
  target: MemberTarget,
  opts: CollectOptions,
): Promise<HttpHealthData | undefined> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  try {
    return await readHttpHealth(opts.httpGet, target.endpoint, signal);
  } catch {
    return undefined;
  }
}

export function memberContext(target: MemberTarget, opts: CollectOptions): MemberProbeContext {
  return {
    target,
    clients: opts.clients.forEndpoint(target.endpoint),
    httpGet: opts.httpGet,
    now: opts.now,
    sleep: opts.sleep,
    metricsWindowMs: opts.metricsWindowMs,
    ...(opts.scrapes ? { scrapes: opts.scrapes } : {}),
    ...(opts.onNote ? { onNote: opts.onNote } : {}),
    // A watch check is cheap by design: few clock samples, as on a busy digest. The digest's first
    // scrapes change only where the window starts, not the clock's samples.
    clockSamples: isWatchCheck(opts)
      ? Math.min(BUSY_CLOCK_SAMPLES, opts.scrapes?.clockSamples ?? BUSY_CLOCK_SAMPLES)
      : opts.busy
        ? BUSY_CLOCK_SAMPLES
        : MAX_SAMPLES,
  };
}
