import type { HealthData } from './evidence.js';
import { deadline, type MemberProbeContext } from './member-context.js';
import type { Probe } from './probe.js';

/**
 * The time of a linearizable Get of key `health`, exactly what `etcdctl endpoint health`
 * measures as `took` (KB §2.1). A permission-denied answer still proves consensus.
 */
export function createMemberHealthProbe(timeoutMs: number): Probe<MemberProbeContext, HealthData> {
  return {
    kind: 'health',
    asks: 'a linearizable read',
    timeoutMs,
    async collect(ctx) {
      await warmUp(ctx, timeoutMs);
      const started = performance.now();
      try {
        await ctx.clients.kv.get('health').options(deadline(ctx.now, timeoutMs)).string();
      } catch (err) {
        if (!/permission denied/i.test(String(err))) throw err;
      }
      return { tookMs: round(performance.now() - started) };
    },
  };
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
  if (warmed.has(ctx.clients.kv)) return;
  try {
    await ctx.clients.kv.get('health').serializable(true).options(deadline(ctx.now, timeoutMs)).string();
  } catch (err) {
    if (!/permission denied/i.test(String(err))) throw err;
  }
  warmed.add(ctx.clients.kv);
}
