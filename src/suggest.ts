import { distance } from 'fastest-levenshtein';

/**
 * The known word a mistyped one most likely meant: `clusterz` → `clusters`, `metricsUrl` →
 * `metricsUrls`, `helth` → `health`. A candidate counts when it is within a third of the word's
 * length in edits (at least 1, at most 3), or when one is the other with a letter or two added;
 * none otherwise: a suggestion that is far off is worse than none.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const wanted = word.toLowerCase();
  let best: { name: string; edits: number } | undefined;
  for (const name of candidates) {
    const edits = distance(wanted, name.toLowerCase());
    if (edits === 0) continue;
    if (!best || edits < best.edits) best = { name, edits };
  }
  if (!best) return undefined;
  const allowed = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  return best.edits <= allowed ? best.name : undefined;
}
