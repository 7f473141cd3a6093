import { formatBytes, formatPercent } from '../../format.js';

/** When a member's defragmentation is worth its pause (RemediationSettings, `maintenance.defrag`). */
export interface DefragThresholds {
  minFreeRatio: number;
  minFreeBytes: number;
}

/** What a defragmentation would return on one member: the free pages bbolt keeps in its file. */
export interface DefragGain {
  dbSizeBytes: number;
  freeBytes: number;
  /** freeBytes / dbSizeBytes. */
  ratio: number;
}

/**
 * dbSize - dbSizeInUse (KB §2.2 Status: `(dbSize − dbSizeInUse)/dbSize` is fragmentation, CEOP
 * defragcontroller.go): what `etcdctl defrag` returns to the filesystem. Undefined when either size
 * is unknown (a member that did not answer, or etcd 3.3 without dbSizeInUse).
 */
export function defragGain(
  dbSizeBytes: number | undefined,
  dbSizeInUseBytes: number | undefined,
): DefragGain | undefined {
  if (dbSizeBytes === undefined || dbSizeInUseBytes === undefined || dbSizeBytes <= 0) return undefined;
  const freeBytes = Math.max(0, dbSizeBytes - dbSizeInUseBytes);
  return { dbSizeBytes, freeBytes, ratio: freeBytes / dbSizeBytes };
}

/** Why a member is not worth defragmenting (`frees 2 MB, 4 % of 48 MB: under 10 %`), or undefined. */
export function smallGain(gain: DefragGain | undefined, t: DefragThresholds): string | undefined {
  if (!gain) return undefined;
  const under: string[] = [];
  if (gain.ratio < t.minFreeRatio) under.push(formatPercent(t.minFreeRatio));
  if (gain.freeBytes < t.minFreeBytes) under.push(formatBytes(t.minFreeBytes));
  if (under.length === 0) return undefined;
  return `would free only ${describeGain(gain)}: under ${under.join(' and under ')}`;
}

/** `48 MB of 52 MB (92 %)`. */
export function describeGain(gain: DefragGain): string {
  return `${formatBytes(gain.freeBytes)} of ${formatBytes(gain.dbSizeBytes)} (${formatPercent(gain.ratio)})`;
}

/** The thresholds in words: `at least 10 % and 50 MB`. */
export function thresholdText(t: DefragThresholds): string {
  return `at least ${formatPercent(t.minFreeRatio)} of the file and ${formatBytes(t.minFreeBytes)}`;
}
