import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseEtcdMetrics } from '../../../src/probes/etcd-metrics.js';
import { decodeSnapshot, encodeSnapshot } from '../../../src/state/watch-state.js';

const PAGE = readFileSync(
  new URL('../../fixtures/metrics/etcd-3.4.23-3member-leader.txt', import.meta.url),
  'utf8',
);

/** The watch keeps each member's last scrape in Redis as JSON; the next check compares against it. */
describe("a watch check's kept scrape, through its JSON in Redis", () => {
  it('comes back as parsed, with every histogram ending at le +Inf', () => {
    const read = parseEtcdMetrics(PAGE, 1_700_000_000_000);
    if (!read.ok) throw new Error(read.error);
    const back = decodeSnapshot(encodeSnapshot(read.snapshot));
    // toEqual passes over the fields JSON drops (undefined ones).
    expect(back).toEqual(read.snapshot);
    expect(back?.walFsync?.buckets.at(-1)?.le).toBe(Number.POSITIVE_INFINITY);
    const peers = Object.values(back?.peerRtt ?? {});
    expect(peers.length).toBeGreaterThan(0);
    for (const h of peers) expect(h.buckets.at(-1)?.le).toBe(Number.POSITIVE_INFINITY);
  });

  it('is undefined for text that is not a kept scrape', () => {
    expect(decodeSnapshot('not json')).toBeUndefined();
    expect(decodeSnapshot('"+Inf"')).toBeUndefined();
    expect(decodeSnapshot('{"scrapedAtMs":"+Inf"}')).toBeUndefined();
  });
});
