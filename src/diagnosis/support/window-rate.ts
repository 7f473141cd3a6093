/**
 * Events counted inside a /metrics window (late heartbeats, slow applies, leader changes, failed
 * peer sends), judged as a rate rather than a bare count. One event in the diagnosis's 3-second
 * window is news; the watch diffs scrapes an interval apart (5 s to minutes), and one late
 * heartbeat in a busy minute is background. So each counter has a rate it may reach before it
 * means trouble, and a window must hold `max(1, floor(rate × window))` events to count: any
 * window shorter than 1/rate needs one event, exactly as before, and a 60 s window needs its
 * share of a minute.
 */
export interface EventRateLimit {
  /** Events per second a member may show before they mean trouble. */
  perSecond: number;
  /** Where the rate comes from (KB source or the measurement behind an inference), for `explain`. */
  source: string;
}

/** Fewest events a window of `windowSeconds` must hold to count (at least one). */
export function eventsNeeded(limit: EventRateLimit, windowSeconds: number): number {
  return Math.max(1, Math.floor(limit.perSecond * Math.max(0, windowSeconds)));
}

/** The window holds enough events to count (a window of 0 s, no earlier scrape, holds none). */
export function tooManyEvents(events: number, windowSeconds: number, limit: EventRateLimit): boolean {
  return events > 0 && events >= eventsNeeded(limit, windowSeconds);
}

/**
 * Late heartbeats (`etcd_server_heartbeat_send_failures_total`: a heartbeat sent later than 2 ×
 * the 100 ms heartbeat interval, KB §1.1 F1 log thresholds and §"heartbeat interval") and slow
 * applies (`etcd_server_slow_apply_total`: an apply over 100 ms, KB F1/F11) have no upstream rate.
 * Inference: 15 a minute (one every 4 s). Any window under 8 s needs one, as the 3-second probe
 * always did; a 60 s window needs 15. Measured on this 2-core host at load 10 with 60 puts/s on a
 * healthy lab: bursts of 6-14 late heartbeats in 12 s, then none for a minute; 1 slow apply in
 * about 12 s at worst.
 */
export const LATE_HEARTBEAT_RATE: EventRateLimit = {
  perSecond: 15 / 60,
  source: 'inference: 15 late heartbeats a minute',
};
export const SLOW_APPLY_RATE: EventRateLimit = {
  perSecond: 15 / 60,
  source: 'inference: 15 slow applies a minute',
};

/**
 * MIXIN etcdHighNumberOfLeaderChanges: 4 changes in 15 min (KB §1.1 F4). Any window under 225 s
 * needs one change: a single change in a minute is already above that rate. The watch opens an
 * incident only on two such windows in a row (src/watch/incident-decision.ts), so one lone
 * election posts nothing.
 */
export const LEADER_CHANGE_RATE: EventRateLimit = {
  perSecond: 4 / (15 * 60),
  source: 'alert etcdHighNumberOfLeaderChanges: 4 in 15 min',
};

/**
 * MIXIN etcdMembersDown: `rate(etcd_network_peer_sent_failures_total[120s]) > 0.01` (KB §1.1 F3
 * and the alert table): any window under 100 s needs one failed send.
 */
export const PEER_SEND_FAILURE_RATE: EventRateLimit = {
  perSecond: 0.01,
  source: 'alert etcdMembersDown: 0.01 failed sends a second',
};
