import type { HealthData } from './evidence.js';
import { deadline, type MemberProbeContext } from './member-context.js';
import type { Probe } from './probe.js';

/** etcd's answer to a linearizable read on a learner (ETCD34/35 etcdserver/api/v3rpc, ErrGRPCNotSupportedForLearner). */
const LEARNER_REFUSAL = /not supported for learner/i;

/**
 * The time of a linearizable Get of key `health`, exactly what `etcdctl endpoint health`
 * measures as `took` (KB §2.1). A permission-denied answer still proves consensus. A learner
 * refuses linearizable reads, so it gets a serializable one (it serves, but is not asked about
 * consensus it takes no part in).
 */
export function createMemberHealthProbe(timeoutMs: number): Probe<MemberProbeContext, HealthData> {
  return {
    kind: 'health',
    asks: 'a linearizable read',
    timeoutMs,
    takesNoSignal: true,
    async collect(ctx) {
      // A warm client sends its read at once, before the member's Status (no await in between):
      // the linearizable read is the slower of the two, and the run waits for the slowest answer.
      if (!warmed.has(ctx.clients.kv)) await warmUp(ctx, timeoutMs);
      if (ctx.target.isLearner) return timedRead(ctx, timeoutMs, true);
      try {
        return await timedRead(ctx, timeoutMs, false);
      } catch (err) {
        if (!LEARNER_REFUSAL.test(String(err))) throw err;
        ctx.target.isLearner = true;
        return timedRead(ctx, timeoutMs, true);
      }
    },
  };
}

async function timedRead(
  ctx: MemberProbeContext,
  timeoutMs: number,
  serializable: boolean,
): Promise<HealthData> {
  const started = performance.now();
  try {
    await ctx.clients.kv.get('health').serializable(serializable).options(deadline(timeoutMs)).string();
  } catch (err) {
    if (!/permission denied/i.test(String(err))) throw err;
  }
  const tookMs = round(performance.now() - started);
  return serializable ? { tookMs, serializable } : { tookMs };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/**
 * etcdctl times only the Get, after a blocking dial (KB §2.1). etcd3 dials lazily, so the first
 * call on a fresh client would include the TCP and HTTP/2 set-up. One untimed serializable read
 * (answered locally, no consensus) opens the channel first; warm clients skip it.
 */
const warmed = new WeakSet<object>();

async function warmUp(ctx: MemberProbeContext, timeoutMs: number): Promise<void> {
  try {
    await ctx.clients.kv.get('health').serializable(true).options(deadline(timeoutMs)).string();
  } catch (err) {
    if (!/permission denied/i.test(String(err))) throw err;
  }
  warmed.add(ctx.clients.kv);
}
