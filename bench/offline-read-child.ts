/**
 * One measured read, in its own process so its peak RSS is its own. `reader`: `readCollection`
 * into a sink that only counts lines and `slow fdatasync` (the readers' own cost). `analysis`:
 * into the offline analysis' sink (createOfflineSink: every line through format detection and the
 * log scanner, objects kept as the rules' evidence). Prints one JSON line.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { CollectionSink } from '../src/offline/collection.js';
import { readCollection } from '../src/offline/readers/index.js';

const [path, mode = 'analysis'] = process.argv.slice(2);
if (!path) throw new Error('usage: offline-read-child.ts <must-gather.tar.gz> [reader|analysis]');

const counts = { lines: 0, slowFdatasync: 0 };
const countingSink: CollectionSink = {
  async log(_meta, lines) {
    for await (const line of lines) {
      counts.lines++;
      if (line.includes('slow fdatasync')) counts.slowFdatasync++;
    }
  },
  object() {},
  etcdInfo() {},
  skipped() {},
};

async function analysisSink() {
  const { createOfflineSink } = await import('../src/offline/offline-sink.js');
  const sink = createOfflineSink({ maxLineChars: 64 * 1024 });
  const tally = () => {
    const logs = sink.collected().logs;
    counts.lines = logs.reduce((n, l) => n + l.writer.lines, 0);
    counts.slowFdatasync = logs.reduce((n, l) => n + l.writer.signals.slowFdatasync.count, 0);
  };
  return { sink, tally };
}

const real = mode === 'analysis' ? await analysisSink() : undefined;
const rssBeforeBytes = process.memoryUsage().rss;
// How long the event loop was held at a time: a bot or worker running this must still answer
// Slack within 3 s and renew its job locks.
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const started = performance.now();
const summary = await readCollection(path, real?.sink ?? countingSink);
const wallMs = performance.now() - started;
loop.disable();
real?.tally();
const loopDelayMaxMs = Math.round(loop.max / 1e6);
const loopDelayP99Ms = Math.round(loop.percentile(99) / 1e6);
process.stdout.write(
  `${JSON.stringify({ wallMs, rssBeforeBytes, maxRssBytes: process.resourceUsage().maxRSS * 1024, loopDelayMaxMs, loopDelayP99Ms, ...counts, summary })}\n`,
);
