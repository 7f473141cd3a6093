import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parseEtcdMetrics, READ_NAMES } from '../../../src/probes/etcd-metrics.js';

/**
 * Every etcd metric family the /metrics reader keeps, against the families etcd registers at each
 * release (test/fixtures/etcd-source/metrics-<tag>.txt, read from etcd's source at the tag: no 3.6
 * or 3.7 binary exists here, issue 40). A name the reader relies on must exist in every release it
 * supports, or have its other name there: etcd 3.6 dropped `etcd_debugging_mvcc_range_total` (the
 * reader now reads `etcd_mvcc_range_total`, 3.5 and later) and the debugging database size.
 */
const TAGS = ['v3.4.20', 'v3.5.21', 'v3.6.0', 'v3.7.0'] as const;
/** Names read under two names across releases: either one will do. */
const EITHER: ReadonlyArray<readonly [string, string]> = [
  ['etcd_mvcc_db_total_size_in_bytes', 'etcd_debugging_mvcc_db_total_size_in_bytes'],
  ['etcd_mvcc_range_total', 'etcd_debugging_mvcc_range_total'],
];
/** Added after the oldest release read: absent there, read where it exists. */
const SINCE: Record<string, (typeof TAGS)[number]> = {
  etcd_debugging_mvcc_db_compaction_last: 'v3.5.21',
  // 3.6 feature gates (server/etcdserver/metrics.go serverFeatureEnabled at v3.6.0).
  etcd_server_feature_enabled: 'v3.6.0',
};

function families(tag: string): Set<string> {
  const path = fileURLToPath(new URL(`../../fixtures/etcd-source/metrics-${tag}.txt`, import.meta.url));
  return new Set(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#')),
  );
}

const familyOf = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
const etcdNames = [...new Set([...READ_NAMES].filter((n) => n.startsWith('etcd_')).map(familyOf))].sort();

describe("the /metrics reader's etcd families in every release it reads", () => {
  it('reads a few dozen etcd families', () => {
    expect(etcdNames.length).toBeGreaterThan(25);
  });

  it.each(TAGS.map((t) => [t]))('%s registers each of them, or its other name', (tag) => {
    const have = families(tag);
    expect(have.size).toBeGreaterThan(90);
    const missing = etcdNames.filter((name) => {
      if (have.has(name)) return false;
      const pair = EITHER.find((p) => p.includes(name));
      if (pair?.some((n) => have.has(n))) return false;
      const since = SINCE[name];
      return !(since && TAGS.indexOf(tag as (typeof TAGS)[number]) < TAGS.indexOf(since));
    });
    expect(missing).toEqual([]);
  });

  it('the range counter is read under its 3.6 name', () => {
    expect(READ_NAMES.has('etcd_mvcc_range_total')).toBe(true);
    expect(families('v3.6.0').has('etcd_debugging_mvcc_range_total')).toBe(false);
  });

  it('a 3.6 page (etcd_mvcc_range_total only) and a 3.4 page (the debugging name only) give the ranges alike', () => {
    const page = (name: string) =>
      ['etcd_server_has_leader 1', 'etcd_server_is_leader 0', `${name} 4242`, ''].join('\n');
    const v36 = parseEtcdMetrics(page('etcd_mvcc_range_total'), 0);
    const v34 = parseEtcdMetrics(page('etcd_debugging_mvcc_range_total'), 0);
    expect(v36.ok && v36.snapshot.load?.mvccRanges).toBe(4242);
    expect(v34.ok && v34.snapshot.load?.mvccRanges).toBe(4242);
  });
});
