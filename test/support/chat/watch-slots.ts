import type { Redis } from 'ioredis';
import { watchOffsetMs } from '../../../src/queue/watch-schedules.js';

/**
 * Whether a watched fleet was checked on schedule, from each cluster's minute history. A cluster's
 * job scheduler fires at its slots, k × interval + its offset (watch-schedules.ts; BullMQ's `every`
 * with `offset`); a check lands in the slot it was fired for unless it ran a whole interval late.
 * So: a slot with two checks is a cluster checked twice in one interval; a slot with none, skipped.
 */
export interface SlotCount {
  /** Checks in the judged slots. */
  checks: number;
  /** Slots judged (clusters × slots that start inside the window). */
  slots: number;
  /** Slots with more than one check, and the clusters they belong to. */
  twice: number;
  /** Slots with no check. */
  skipped: number;
  clustersTwice: string[];
  clustersSkipped: string[];
}

/** Each cluster's check times (its minute samples' times, ms) from `sinceMs` on, in one pipeline. */
export async function checkTimes(
  redis: Redis,
  prefix: string,
  clusters: string[],
  sinceMs = 0,
): Promise<Map<string, number[]>> {
  const pipeline = redis.pipeline();
  for (const c of clusters) pipeline.zrangebyscore(`${prefix}:minutes:${c}`, sinceMs, '+inf', 'WITHSCORES');
  const replies = (await pipeline.exec()) ?? [];
  return new Map(
    clusters.map((c, i) => {
      const reply = (replies[i]?.[1] as string[] | undefined) ?? [];
      return [c, reply.filter((_, k) => k % 2 === 1).map(Number)];
    }),
  );
}

/** Judges the slots of every cluster that start in [fromMs, toMs). */
export function countSlots(
  times: Map<string, number[]>,
  fromMs: number,
  toMs: number,
  everyMs: number,
): SlotCount {
  const out: SlotCount = {
    checks: 0,
    slots: 0,
    twice: 0,
    skipped: 0,
    clustersTwice: [],
    clustersSkipped: [],
  };
  for (const [cluster, all] of times) {
    const offset = watchOffsetMs(cluster, everyMs);
    const first = Math.ceil((fromMs - offset) / everyMs);
    const last = Math.floor((toMs - 1 - offset) / everyMs);
    const perSlot = new Map<number, number>();
    for (const t of all) {
      const slot = Math.floor((t - offset) / everyMs);
      perSlot.set(slot, (perSlot.get(slot) ?? 0) + 1);
    }
    for (let slot = first; slot <= last; slot++) {
      const n = perSlot.get(slot) ?? 0;
      out.slots += 1;
      out.checks += n;
      if (n > 1) {
        out.twice += 1;
        if (!out.clustersTwice.includes(cluster)) out.clustersTwice.push(cluster);
      }
      if (n === 0) {
        out.skipped += 1;
        if (!out.clustersSkipped.includes(cluster)) out.clustersSkipped.push(cluster);
      }
    }
  }
  return out;
}
