/**
 * One measured snapshot read (`analyzeSnapshot`: the bbolt walk, the SHA-256 trailer and the space
 * breakdown), in its own process so its peak RSS is its own. Prints one JSON line.
 */
import { analyzeSnapshot } from '../src/offline/snapshot/analyze-snapshot.js';

const [path] = process.argv.slice(2);
if (!path) throw new Error('usage: snapshot-read-child.ts <snapshot.db>');
const rssBeforeBytes = process.memoryUsage().rss;
const started = performance.now();
const report = await analyzeSnapshot(path);
const wallMs = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({
    wallMs,
    rssBeforeBytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    totalKeys: report.snapshot.totalKeys,
    sizeBytes: report.snapshot.sizeBytes,
    hashOk: report.snapshot.hashOk,
  })}\n`,
);
