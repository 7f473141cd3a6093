import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { CAUSES } from '../../../src/diagnosis/finding.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';

/**
 * The corpus of real etcd logs (test/fixtures/real-logs/, issue 37 item 4): logs posted in public
 * bug reports and discussions, trimmed but never edited, each read through `etcd-doctor analyze
 * --json` as a user pastes it. The expected cause is the thread's own conclusion (expected.json),
 * never etcd-doctor's answer. Prints one line per log and the score: top-1 right among the logs
 * whose thread reached a conclusion, and the logs etcd-doctor could not read at all.
 */
const DIR = join(import.meta.dirname, '../../fixtures/real-logs');

/**
 * What today's code reaches: 16 of 55 right and 23 unread when the corpus was added, 25 right with
 * the new causes, 42 right and none unread once etcd's shapes are found inside any wrapper
 * (src/etcd/find-line.ts), 45 with etcd 2.x's peer errors, 46 with x509 HostnameError, 47 with a
 * compaction stall that ended inside the log, 49 with small requests over 100 ms repeated
 * (slow-disk, sealos-882) and one slow authenticate beside late heartbeats (cpu-starvation,
 * etcd-11012), 50 (91 %, issue 37's "Done when") with a cluster that never formed (campaigns
 * from raft's bootstrap entries alone: peer-network, opsnull-342). With 14 more logs (79, 66
 * counted) 59 of 66 (89 %): the new misses etcd-3065 (no finding) and rke-1123 (cert-expiry where
 * the thread says clock-skew: Go before 1.15 does not say expired or not yet valid). 60 (91 %) with
 * etcd 2.0's fatal `read wal error: <err>` read as an unreadable WAL (corruption, etcd-3065). With 8
 * held-out logs from outside etcd-io/etcd added blind (87, 71 counted) 64 of 71 at first read (one
 * unread), 65 (92 %) with capnslog's `<pkg>: <message>` read without its time and level (cert-expiry,
 * kops-11527). Six held-out etcd-io/etcd threads added blind (93 logs, 77 counted): 1 of the 6 right
 * at first read, 2 with a peer that dials the member after its refused dials read as running, not
 * down (peer-tls first, etcd-8268; etcd 3.2.0–3.2.11's unquoted `rejected connection from` read
 * too): 67 of 77 (87 %). Four held-out threads from the Kubernetes ecosystem added blind (97 logs, 81
 * counted): 3 of the 4 right at first read (70 of 81), 71 (88 %) with etcd's `.snap.broken` snapshot
 * files read as a damaged data dir (corruption, a warning: etcd-5518). A fifth, from coreos/etcd-operator,
 * right at first read (peer-tls, etcd-operator-1384): 72 of 82 (88 %). Seven logs from public pages
 * (blogs, a vendor knowledge base) added blind (105 logs, 88 counted): 1 of the 5 held out right at
 * first read and 3 unread, then 76 of 88 (86 %) and none unread with bbolt's freepages panic read as
 * a damaged db file (corruption, pswp-84428), etcd's bare messages read as its lines (capnslog's
 * journald form through `journalctl -o cat`: fd-exhaustion, jianshu-e09264aeb3f3) and zap fields
 * quoted from a key on (cluster-mismatch, csdn-153183452).
 */
const FLOOR_RIGHT = 76;
const CEILING_UNREAD = 0;

/** Causes issue 37 adds (fd-exhaustion …); `healthy` expects no warning or critical finding. */
const LABELS = new Set<string>([
  ...CAUSES,
  'fd-exhaustion',
  'disk-full',
  'out-of-memory',
  'dns-resolution',
  'etcd-crash',
  'healthy',
]);

interface Entry {
  file: string;
  expected: string;
  members: string[];
  alternatives: string[];
  counted: boolean;
  source: string;
}

interface Report {
  findings: Array<{ cause: string; severity: string; members: string[] }>;
}

type Verdict = 'right' | 'wrong' | 'unread';

interface Outcome {
  entry: Entry;
  verdict: Verdict;
  said: string;
}

async function readTable(): Promise<Entry[]> {
  const doc = JSON.parse(await readFile(join(DIR, 'expected.json'), 'utf8')) as { logs: Entry[] };
  return doc.logs;
}

/** What etcd-doctor answers for one log, as the user sees it, and whether that is the thread's cause. */
async function judge(entry: Entry): Promise<Outcome> {
  const r = await cliInProcess(['analyze', join(DIR, entry.file), '--json']);
  if (!r.stdout.trimStart().startsWith('{')) {
    return { entry, verdict: 'unread', said: (r.stderr || r.stdout).split('\n')[0] ?? '' };
  }
  const { findings } = JSON.parse(r.stdout) as Report;
  const said =
    findings.map((f) => `${f.cause}/${f.severity}[${f.members.join(',')}]`).join(' ') || 'no finding';
  if (entry.expected === 'healthy') {
    const alarm = findings.some((f) => f.severity === 'warning' || f.severity === 'critical');
    return { entry, verdict: alarm ? 'wrong' : 'right', said };
  }
  const top = findings[0];
  const causeRight = top !== undefined && [entry.expected, ...entry.alternatives].includes(top.cause);
  const memberRight = entry.members.every((m) => top?.members.includes(m));
  return { entry, verdict: causeRight && memberRight ? 'right' : 'wrong', said };
}

function line(o: Outcome): string {
  const mark = { right: 'ok  ', wrong: 'MISS', unread: 'UNRD' }[o.verdict];
  const counted = o.entry.counted ? '' : ' (not counted: no conclusion)';
  const want = `${o.entry.expected}${o.entry.members.length > 0 ? `[${o.entry.members.join(',')}]` : ''}`;
  return `${mark} ${o.entry.file.padEnd(28)} want ${want.padEnd(34)} got ${o.said}${counted}`;
}

describe('the real-log corpus', () => {
  it('has one row per log, known cause names, and loopback addresses only', async () => {
    const table = await readTable();
    const logs = (await readdir(DIR)).filter((f) => f.endsWith('.log')).sort();
    expect(table.map((e) => e.file).sort()).toEqual(logs);
    for (const e of table) {
      const unknown = [e.expected, ...e.alternatives].filter((c) => !LABELS.has(c));
      expect({ file: e.file, unknown }).toEqual({ file: e.file, unknown: [] });
      expect(e.source).toMatch(/^https:\/\//);
      const text = await readFile(join(DIR, e.file), 'utf8');
      const foreign = /(?<![\d.])(?!127\.|0\.0\.0\.0)\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d.])/.exec(text);
      expect(foreign ? `${e.file} names ${foreign[0]}` : null).toBeNull();
    }
  });

  it('scores etcd-doctor against the threads’ conclusions (printed), no lower than today', async () => {
    const table = await readTable();
    const outcomes: Outcome[] = [];
    for (const entry of table) outcomes.push(await judge(entry));

    const counted = outcomes.filter((o) => o.entry.counted);
    const right = counted.filter((o) => o.verdict === 'right').length;
    const unread = counted.filter((o) => o.verdict === 'unread').length;
    const pct = ((100 * right) / counted.length).toFixed(0);
    process.stdout.write(
      `\nReal-log corpus: ${right} of ${counted.length} right at top-1 (${pct} %), ${unread} unread; ` +
        `${outcomes.length - counted.length} logs without a conclusion not counted\n` +
        `${outcomes.map(line).join('\n')}\n`,
    );

    expect(right).toBeGreaterThanOrEqual(FLOOR_RIGHT);
    expect(unread).toBeLessThanOrEqual(CEILING_UNREAD);
  }, 300_000);
});
