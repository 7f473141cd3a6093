import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { CATALOGUE, catalogueEntryOf, catalogueSignal } from '../../../src/etcd/catalogue.js';
import { emptySignals, scanLogText } from '../../../src/etcd/scan-logs.js';

/**
 * The log signals take their messages from the catalogue (issue 37 item 1: one table the offline
 * reader, the live pod-log scan, unexplained-errors and docs/detection.md all read): every signal
 * a scanner names resolves to catalogue entries, and each entry's message is counted by it.
 */
const SRC = join(import.meta.dirname, '../../../src/etcd');
const SCANNERS = ['scan-logs.ts', 'scan-faults.ts'];

async function namedBySource(): Promise<string[]> {
  const names: string[] = [];
  for (const file of SCANNERS) {
    const text = await readFile(join(SRC, file), 'utf8');
    for (const m of text.matchAll(/catalogueSignal\('([A-Za-z]+)'\)/g)) if (m[1]) names.push(m[1]);
  }
  return [...new Set(names)].sort();
}

const catalogued = [...new Set(CATALOGUE.flatMap((e) => (e.signal ? [e.signal] : [])))].sort();

describe('log signals read their messages from the catalogue', () => {
  it('every signal a scanner names resolves to existing entries, and every catalogued signal is read', async () => {
    const named = await namedBySource();
    expect(named.length).toBeGreaterThanOrEqual(7);
    for (const name of named) {
      const { entries, zap, text } = catalogueSignal(name);
      expect(entries.length).toBeGreaterThan(0);
      for (const e of entries) expect(CATALOGUE).toContain(e);
      for (const msg of zap) expect(catalogueEntryOf('', msg)?.signal).toBe(name);
      if (text) expect(catalogueEntryOf(`W | etcdserver: ${text}`)?.signal).toBe(name);
    }
    expect(named).toEqual(catalogued);
  });

  it('each signal is a counter of the scan', () => {
    const keys = Object.keys(emptySignals());
    for (const name of catalogued) expect(keys).toContain(name);
  });

  it('an unknown signal fails as the module loads, not in a scan', () => {
    expect(() => catalogueSignal('noSuchSignal')).toThrow(
      /no catalogue entry counts the log signal noSuchSignal/,
    );
  });

  it("each catalogued zap message counts on its signal, on a line of etcd's shape", () => {
    const fieldsOf: Record<string, string> = {
      tookTooLong:
        '"took":"1.2s","expected-duration":"100ms","prefix":"","request":"key:\\"a\\" ","response":"size:7"',
      heartbeatLate:
        '"to":"b366cbcd316c915f","heartbeat-interval":"100ms","expected-duration":"200ms","exceeded-duration":"1.1s"',
      slowFdatasync: '"took":"1.3s","expected-duration":"1s"',
      clockDrift:
        '"round-tripper-name":"ROUND_TRIPPER_RAFT_MESSAGE","remote-peer-id":"d7523d07ecd5d55e","clock-drift":"10.5s","rtt":"1.2ms"',
      peerUnreachable:
        '"round-tripper-name":"ROUND_TRIPPER_SNAPSHOT","remote-peer-id":"b366cbcd316c915f","rtt":"0s","error":"dial tcp 127.5.3.5:2380: i/o timeout"',
      compactions: '"compact-revision":1234,"took":"2ms"',
      defragmented: '"current-db-size-bytes":1000,"current-db-size-in-use-bytes":900,"took":"1s"',
    };
    for (const name of catalogued) {
      for (const msg of catalogueSignal(name).zap) {
        const line = `{"level":"warn","ts":"2024-05-01T10:00:00.000Z","caller":"x.go:1","msg":"${msg}",${fieldsOf[name] ?? '"x":1'}}`;
        const s = scanLogText(line) as unknown as Record<string, { count?: number; length?: number }>;
        const stat = s[name];
        expect({ msg, counted: Array.isArray(stat) ? stat.length : stat?.count }).toEqual({
          msg,
          counted: 1,
        });
      }
    }
  });
});
