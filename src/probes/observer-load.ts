import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { ObserverLoad } from './evidence.js';

/**
 * The event-loop delay histogram samples every RESOLUTION_MS and records how late each sample
 * fired, the resolution included (measured: an idle loop reads 10.0-10.8 ms at 10 ms), so the
 * resolution is taken off. 10 ms is Node's default and fine enough for the 30-500 ms limits the
 * latency rules use.
 */
export const LOOP_DELAY_RESOLUTION_MS = 10;

/**
 * Ten diagnoses at once against the same hosts send them ~180 requests in 3 s: enough to slow a
 * member on a small host, so the latencies we time would measure our own load (inference; a
 * digest of 200 clusters whose members share two hosts). From there a run samples the clocks
 * less (collect-options.ts BUSY_CLOCK_SAMPLES) and the latency rules do not judge.
 */
export const BUSY_SAME_HOST_RUNS = 10;

export interface ObserverWindow {
  /** Stops measuring; `concurrentRuns` is the most runs this process had in flight meanwhile. */
  stop(concurrentRuns: number): ObserverLoad;
}

/**
 * Stopped histograms, reset, for the next run: creating one (a native histogram and its timer)
 * cost about a tenth of a millisecond, a few percent of a warm health check's CPU.
 */
const idle: IntervalHistogram[] = [];
const MAX_IDLE_HISTOGRAMS = 16;

/**
 * Measures etcd-doctor's own event-loop delay while one run probes (perf_hooks
 * monitorEventLoopDelay). Every latency we read (a GET's round trip, a read's took) includes the
 * time our own loop was busy, so a stalled observer must not blame the members.
 */
export function startObserverWindow(now: () => number = performance.now.bind(performance)): ObserverWindow {
  const histogram = idle.pop() ?? monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  // reset() also forgets the time of the last tick: without it, the first tick after an idle gap
  // would record the whole gap as one delay (see stop()).
  histogram.reset();
  histogram.enable();
  const started = now();
  let load: ObserverLoad | undefined;
  return {
    stop(concurrentRuns) {
      if (load) return load;
      histogram.disable();
      load = loadOf(histogram, concurrentRuns, Math.round(now() - started));
      // Always reset, samples or none: the first tick of a window only notes its time and records
      // nothing, so a window of one tick (a warm health check) holds no sample yet keeps that time,
      // and the next window's first sample was then the whole idle gap between them (a false
      // observer-load of 2-30 s after any pause, which switched the latency rules off).
      histogram.reset();
      if (idle.length < MAX_IDLE_HISTOGRAMS) idle.push(histogram);
      return load;
    },
  };
}

function loadOf(histogram: IntervalHistogram, concurrentRuns: number, windowMs: number): ObserverLoad {
  const ms = (ns: number) => Math.max(0, Math.round((ns / 1e6 - LOOP_DELAY_RESOLUTION_MS) * 10) / 10);
  const samples = histogram.count > 0;
  return {
    loopDelayP99Ms: samples ? ms(histogram.percentile(99)) : 0,
    loopDelayMaxMs: samples ? ms(histogram.max) : 0,
    loopDelayMeanMs: samples ? ms(histogram.mean) : 0,
    samples: histogram.count,
    concurrentRuns,
    windowMs,
  };
}
