import { describe, expect, it } from '@jest/globals';
import { CATALOGUE } from '../../../src/etcd/catalogue.js';
import { MAX_SCANNED_LINE_CHARS, scanLogText } from '../../../src/etcd/scan-logs.js';

/**
 * Issue 38 M1 and L6: every regex that reads a log line runs in linear time, and the live scan of a
 * pod's log reads each line up to the same cap as offline analysis. A quadratic pattern shows on
 * one 64 KiB line of its own opening repeated, or of one long run of the characters it repeats
 * (the review's `CANDIDATE` took 3.5 s on one); 1 s per line is a wide margin over linear (a few ms).
 */
const KIB64 = 64 * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(KIB64 / unit.length)).slice(0, KIB64);

/** The openings of the line families scan-logs.ts and scan-faults.ts read, each repeated to 64 KiB. */
const OPENINGS = [
  'became candidate at term ',
  'became pre-candidate at term 1 ',
  'took too long (',
  'apply request took too long (',
  'x509: certificate ',
  'remote error: tls: bad certificate ',
  'dial tcp ',
  'dial tcp [',
  'database space exceeded ',
  'published {Name:',
  'added member ',
  'lookup ',
  'failed resolving host ',
  'could not resolve host ',
  'no space left on device ',
  'too many open files ',
  'fatal error: ',
  'panic: ',
  'sync duration of ',
  'slow fdatasync ',
  'failed to send out heartbeat on time ',
  'prober detected unhealthy status ',
  'rejected connection from "',
  'does not match any of DNSNames [',
  "snapshot file doesn't exist ",
  'wal error (',
  'request is too large ',
  'lost leader ',
  'elected leader ',
  '{"level":"warn","msg":"',
  '"took":"',
  '2026-12-06 03:00:00.000000 W | etcdserver: ',
  '2026/12/06 03:00:00 etcdserver: ',
];
/** Long runs of the characters a pattern repeats (ids, digits, words, spaces, quotes). */
const RUNS = ['0', 'a', 'f', '1.', ' ', '"', '\\"', ':', '{', '[', 'ms', 'a-b.', 'a b '];

describe('log lines built to make a regex backtrack', () => {
  it.each([
    ...OPENINGS.map((o) => [`opening ${JSON.stringify(o)}`, fill(o)]),
    ...RUNS.map((r) => [`run of ${JSON.stringify(r)}`, fill(r)]),
  ])('%s, 64 KiB: read in well under a second', (_name, line) => {
    const started = performance.now();
    scanLogText(line);
    scanLogText(`2026-12-06 03:00:00.000000 W | etcdserver: ${line}`);
    scanLogText(`{"level":"warn","ts":"2026-12-06T03:00:00.000Z","msg":"${line.replace(/"/g, "'")}"}`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

// The catalogue (src/etcd/catalogue.ts) matches plain text, no regex; each of its messages repeated
// to 64 KiB, as an error line of capnslog, zap JSON and zap's console encoder (the lines that reach it).
describe('catalogue messages repeated to make its lookup slow', () => {
  it.each(CATALOGUE.map((e) => [e.zap ?? e.text ?? '']))(
    '%s, 64 KiB: read in well under a second',
    (unit) => {
      const line = fill(unit);
      const started = performance.now();
      scanLogText(`2026-12-06 03:00:00.000000 E | etcdserver: ${line}`);
      scanLogText(JSON.stringify({ level: 'error', ts: '2026-12-06T03:00:00.000Z', msg: line }));
      scanLogText(`2026-12-06T03:00:00.000Z\tERROR\tetcdserver/server.go:1\t${line}`);
      expect(performance.now() - started).toBeLessThan(1000);
    },
  );
});

describe("a pod's log line longer than the cap (the live scan)", () => {
  const slowApply =
    '2026-12-06 03:00:00.000000 W | etcdserver: apply request took too long (2.5s) to execute (expected 100ms)';

  it('reads the line up to the cap: the signal at its start counts, what lies past the cap is not read', () => {
    const padding = 'x'.repeat(MAX_SCANNED_LINE_CHARS);
    const signals = scanLogText([`${slowApply} ${padding}`, `${padding}${slowApply}`].join('\n'));
    expect(signals.tookTooLong.count).toBe(1);
  });

  it('a 4 MB line is read in well under a second', () => {
    const started = performance.now();
    scanLogText(`${slowApply} ${'became candidate at term '.repeat(160_000)}`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
