import type { TimelineEntry } from '../contracts/report-json.js';

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
  clusterIdMismatch: 'cluster ID mismatch',
  memberRemoved: 'removed from the cluster',
  removedPeerRejected: 'stream of a removed peer refused',
  alreadyBootstrapped: 'already bootstrapped',
  tlsRejected: 'TLS connection refused',
  candidacies: 'became candidate',
  defragmented: 'defragmented',
  quota: 'backend quota logged',
};

export function signalWords(signal: string): string {
  return SIGNAL_WORDS[signal] ?? signal.replace(/^event:/, 'event ');
}

/** `12:26:12–12:26:27  etcd-2  14 × slow fdatasync (up to 4.0 s)`, one line per entry, oldest first. */
export function timelineLines(entries: readonly TimelineEntry[], max = 12): string[] {
  // Times alone when everything happened on one day; the date too when it did not.
  const days = new Set(entries.flatMap((e) => [e.firstSeenAt.slice(0, 10), e.lastSeenAt.slice(0, 10)]));
  const at = (t: string) => (days.size > 1 ? `${t.slice(0, 10)} ${t.slice(11, 19)}` : t.slice(11, 19));
  const lines = entries.slice(0, max).map((e) => {
    const from = at(e.firstSeenAt);
    const sameDay = e.firstSeenAt.slice(0, 10) === e.lastSeenAt.slice(0, 10);
    const to = sameDay ? e.lastSeenAt.slice(11, 19) : at(e.lastSeenAt);
    const when = from.endsWith(to) ? from : `${from}–${to}`;
    const who = `${e.member ?? '?'}${e.peer ? ` -> ${e.peer}` : ''}`;
    const max = e.maxSeconds !== undefined ? ` (up to ${e.maxSeconds.toFixed(1)} s)` : '';
    return `${when}  ${who}: ${e.count} × ${signalWords(e.signal)}${max}`;
  });
  if (entries.length > max) lines.push(`(+${entries.length - max} more in the JSON)`);
  return lines;
}
