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
