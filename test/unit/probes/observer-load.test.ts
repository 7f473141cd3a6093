import { describe, expect, it } from '@jest/globals';
import { startObserverWindow } from '../../../src/probes/observer-load.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A window's delays are its own, never the idle time before it (issue 42, item 1). The histograms
 * are reused between runs; the first tick of a window only notes its time, so a window of one tick
 * (a warm health check of 10-20 ms) held no sample and kept that time, and the next window counted
 * the whole pause since as one delay: a false observer-load, which turns the latency rules off.
 */
describe('observer load across idle gaps', () => {
  it('short windows, each followed by a pause of 3 s and a 60 ms window: no delay near the pause', async () => {
    const GAP_MS = 3000;
    const seen: Array<{ window: number; maxMs: number }> = [];
    // Windows shorter than, near and just past the 10 ms resolution: one of them ends on one tick.
    for (const windowMs of [4, 11, 14, 19]) {
      const short = startObserverWindow();
      await pause(windowMs);
      short.stop(1);
      await pause(GAP_MS);
      const next = startObserverWindow();
      await pause(60);
      seen.push({ window: windowMs, maxMs: next.stop(1).loopDelayMaxMs });
    }
    // On the old code each of these read 3,000 ms and more; a busy host may delay a timer, not by half the pause.
    for (const s of seen) expect(s.maxMs).toBeLessThan(GAP_MS / 2);
  }, 30_000);
});
