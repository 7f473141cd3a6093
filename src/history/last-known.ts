import type { Logger } from '../logger.js';
import { COL, type MinuteSample } from '../state/minute-sample.js';
import { type HistoryReader, readHistory } from './since-when-report.js';

/**
 * Where each member last stood as the watch saw it: the newest minute sample in which its Status
 * answered, with its revision, raft term and raft index (src/state/minute-sample.ts raftPosition).
 * The recovery plan shows it for a member that is down now (issue 40, "a member that is down: its
 * last known state from the watch's history").
 */
export interface LastKnownState {
  /** Epoch ms of the check that saw it (a roll-up's period start: within 5 minutes of it). */
  at: number;
  revision: number;
  term: number;
  raftIndex: number;
}

export function lastKnownStates(samples: readonly MinuteSample[]): Map<string, LastKnownState> {
  const out = new Map<string, LastKnownState>();
  for (const sample of samples)
    for (const member of sample.m) {
      const position = member[COL.raftPosition];
      if (!position) continue;
      const name = member[COL.name];
      const seen = out.get(name);
      if (seen && seen.at > sample.t) continue;
      out.set(name, { at: sample.t, revision: position[0], term: position[1], raftIndex: position[2] });
    }
  return out;
}

/** The last known states from a minute history (the day at full resolution); none when it cannot be read. */
export async function readLastKnownStates(
  history: HistoryReader,
  cluster: string,
  now: number,
  logger?: Logger,
): Promise<Map<string, LastKnownState>> {
  return lastKnownStates(await readHistory(history, cluster, now, logger));
}
