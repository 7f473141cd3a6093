/** One signal on one member, as the collected evidence dates it (`timeline[]` in the JSON). */
export interface TimelineEntry {
  /** The log signal or object event (`slowFdatasync`, `leaderElected`, `containerExit`, ...). */
  signal: string;
  /** The member or node it was seen on, when known. */
  member: string | null;
  /** The peer a peer signal names (`clockDrift`, `peerUnreachable`). */
  peer?: string;
  firstSeenAt: string;
  lastSeenAt: string;
  count: number;
  /** The worst duration seen, for duration signals (`slow fdatasync` up to 4.0 s). */
  maxSeconds?: number;
}

/** Words for the signals, as the logs say them. */
const SIGNAL_WORDS: Record<string, string> = {
  slowFdatasync: 'slow fdatasync',
  tookTooLong: 'took too long',
  heartbeatLate: 'heartbeat sent late',
  clockDrift: 'clock difference',
  peerUnreachable: 'peer unreachable',
  leaderLost: 'lost leader',
  leaderElected: 'elected leader',
  requestTimedOut: 'request timed out',
  leaderChanged: 'leader changed',
  leaderElectionLost: 'leaderelection lost',
  leaseRenewFailed: 'failed to renew lease',
  databaseSpaceExceeded: 'database space exceeded',
  tocommitOutOfRange: 'tocommit out of range',
  startingMember: 'starting member',
  restartingMember: 'restarting member',
  containerExit: 'container exited',
};

export function signalWords(signal: string): string {
  return SIGNAL_WORDS[signal] ?? signal.replace(/^event:/, 'event ');
}

/** `12:26:12–12:26:27  etcd-2  14 × slow fdatasync (up to 4.0 s)`, one line per entry, oldest first. */
export function timelineLines(entries: readonly TimelineEntry[], max = 12): string[] {
  const lines = entries.slice(0, max).map((e) => {
    const from = e.firstSeenAt.slice(11, 19);
    const to = e.lastSeenAt.slice(11, 19);
    const when = from === to ? from : `${from}–${to}`;
    const who = `${e.member ?? '?'}${e.peer ? ` -> ${e.peer}` : ''}`;
    const max = e.maxSeconds !== undefined ? ` (up to ${e.maxSeconds.toFixed(1)} s)` : '';
    return `${when}  ${who}: ${e.count} × ${signalWords(e.signal)}${max}`;
  });
  if (entries.length > max) lines.push(`(+${entries.length - max} more in the JSON)`);
  return lines;
}
