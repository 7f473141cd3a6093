import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { createMetricsLineFilter, parseEtcdMetrics } from '../../../src/probes/etcd-metrics.js';
import { parseEtcdMetricsReference } from '../../support/probes/reference-metrics.js';

/**
 * The /metrics reading every check uses keeps only the ~100 lines the rules read and reads them
 * directly (a check parses only the families it uses); the reference reads every line of the page through parse-prometheus-text-format.
 * The rules' input must be the same numbers either way: on every recorded etcd page, and on lines
 * that test the corners of the text format.
 */
const DIR = new URL('../../fixtures/metrics/', import.meta.url);
const FIXTURES = readdirSync(DIR).filter((f) => f.endsWith('.txt'));

function streamed(text: string, at: number) {
  const filter = createMetricsLineFilter();
  for (const line of text.split('\n')) filter.line(line);
  return filter.parse(at);
}

describe('the filtered, direct /metrics reading', () => {
  it('has recorded pages to compare on', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(5);
  });

  it.each(FIXTURES)('gives the same snapshot as the full reading on %s', (file) => {
    const text = readFileSync(new URL(file, DIR), 'utf8');
    const full = parseEtcdMetricsReference(text, 1234);
    expect(full.ok).toBe(true);
    expect(parseEtcdMetrics(text, 1234)).toEqual(full);
    expect(streamed(text, 1234)).toEqual(full);
    // And it is not empty: the histograms and counters the rules read are there.
    if (full.ok) {
      expect(full.snapshot.walFsync?.buckets.length).toBeGreaterThan(5);
      expect(full.snapshot.gauges.serverId).toMatch(/^[0-9a-f]+$/);
    }
  });

  it.each([
    [
      'labels in any order, escapes, spaces and a timestamp',
      [
        'etcd_network_peer_round_trip_time_seconds_bucket{le="0.0001",To="a1"} 3 1700000000000',
        'etcd_network_peer_round_trip_time_seconds_bucket{To="a1",le="+Inf"} 7',
        'etcd_network_peer_round_trip_time_seconds_sum{To="a1"}  0.25',
        'etcd_network_peer_round_trip_time_seconds_count{To="a1"}\t7',
        'etcd_server_id{server_id="8e9e\\\\05\\"c5\\n"} 1',
        '  etcd_server_has_leader 1  ',
      ],
    ],
    [
      'the same sample twice in a row (the last value wins) and again later',
      [
        'etcd_server_leader_changes_seen_total 2',
        'etcd_server_leader_changes_seen_total 3',
        'etcd_server_has_leader 1',
        'etcd_server_leader_changes_seen_total 9',
      ],
    ],
    [
      'special values',
      [
        'etcd_server_has_leader NaN',
        'etcd_server_is_leader +Inf',
        'etcd_server_proposals_pending -1e3',
        'etcd_mvcc_db_total_size_in_bytes 1.5E+07',
      ],
    ],
    ['a value that is not a number', ['etcd_server_has_leader one', 'etcd_server_is_leader 1']],
    ['an unclosed label set', ['etcd_server_has_leader{a="b" 1']],
    ['a bad value before an invalid line', ['etcd_server_is_leader x', 'etcd_server_has_leader{a=b} 1']],
    ['a space after a comma (the parser refuses it)', ['etcd_server_id{a="1", server_id="2"} 1']],
    ['a label without a value', ['etcd_server_id{server_id} 1', 'etcd_server_has_leader{} 1']],
  ])('reads %s as the reference does', (_what, lines) => {
    const text = `${lines.join('\n')}\n`;
    expect(parseEtcdMetrics(text, 5)).toEqual(parseEtcdMetricsReference(text, 5));
  });
});
