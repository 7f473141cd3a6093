import type { ClockData } from './evidence.js';
import type { MemberProbeContext } from './member-context.js';
import { ProbeError, type Probe } from './probe.js';

/**
 * A member's wall clock, read from the HTTP `Date` header of its client URL (/version).
 * `Date` has 1 s resolution, so one sample is only good to ±500 ms. We sample every
 * SAMPLE_SPACING_MS until the header ticks over to the next second: the tick happened
 * between the two samples, which pins the offset to about ±(spacing + rtt) / 2.
 * etcd warns above 1 s of drift (KB §1.2 F2, probing_status.go), so this precision suffices.
 */
export const SAMPLE_SPACING_MS = 90;
/** 13 samples × 90 ms spans more than one second, so a tick is always seen. */
export const MAX_SAMPLES = 13;
/**
 * Keep sampling past the tick until this many answers: their slowest round trip shows whether
 * the member stalls (CPU starvation answers even /version late), spread over about a second.
 */
export const MIN_SAMPLES = 10;

interface Sample {
  dateMs: number;
  midMs: number;
  rttMs: number;
}

export function createClockProbe(timeoutMs: number): Probe<MemberProbeContext, ClockData> {
  return {
    kind: 'clock',
    asks: 'GET /version (for its clock)',
    timeoutMs,
    async collect(ctx, signal) {
      const samples: Sample[] = [];
      let tick: ClockData | undefined;
      const limit = Math.min(MAX_SAMPLES, ctx.clockSamples ?? MAX_SAMPLES);
      for (let i = 0; i < limit && !signal.aborted; i++) {
        samples.push(await takeSample(ctx, signal));
        tick ??= findTick(samples);
        if (tick && samples.length >= Math.min(MIN_SAMPLES, limit)) break;
        // No pause after the last sample: nothing follows it.
        if (i + 1 >= limit) break;
        // Jitter keeps the samples from locking onto the phase of a periodic stall.
        await ctx.sleep(SAMPLE_SPACING_MS / 2 + ((i * 37) % SAMPLE_SPACING_MS), signal);
      }
      return tick
        ? { ...tick, maxRttMs: slowest(samples), meanRttMs: mean(samples), samples: samples.length }
        : fromSingleSample(samples);
    },
  };
}

async function takeSample(ctx: MemberProbeContext, signal: AbortSignal): Promise<Sample> {
  const sent = ctx.now();
  const res = await ctx.httpGet(`${ctx.target.endpoint.replace(/\/+$/, '')}/version`, signal);
  const received = ctx.now();
  const header = res.headers.date;
  const dateMs = Date.parse(Array.isArray(header) ? (header[0] ?? '') : (header ?? ''));
  if (Number.isNaN(dateMs))
    throw new ProbeError('error', `sent no usable Date header on /version (HTTP ${res.status})`);
  return { dateMs, midMs: (sent + received) / 2, rttMs: received - sent };
}

/** The first pair of samples whose Date differs: the member's clock crossed dateMs between them. */
export function findTick(samples: Sample[]): ClockData | undefined {
  const last = samples.at(-1);
  const before = samples.at(-2);
  if (!last || !before || last.dateMs === before.dateMs) return undefined;
  const tickAtOurMs = (before.midMs + last.midMs) / 2;
  const maxRtt = Math.max(last.rttMs, before.rttMs);
  return {
    offsetMs: Math.round(last.dateMs - tickAtOurMs),
    uncertaintyMs: Math.round((last.midMs - before.midMs) / 2 + maxRtt / 2),
    rttMs: Math.round(maxRtt * 10) / 10,
    maxRttMs: slowest(samples),
    meanRttMs: mean(samples),
    samples: samples.length,
  };
}

function fromSingleSample(samples: Sample[]): ClockData {
  const first = samples[0];
  if (!first) throw new ProbeError('error', 'gave no clock sample');
  return {
    offsetMs: Math.round(first.dateMs + 500 - first.midMs),
    uncertaintyMs: Math.round(500 + first.rttMs / 2),
    rttMs: Math.round(first.rttMs * 10) / 10,
    maxRttMs: slowest(samples),
    meanRttMs: mean(samples),
    samples: samples.length,
  };
}

function slowest(samples: Sample[]): number {
  return Math.round(Math.max(...samples.map((s) => s.rttMs)) * 10) / 10;
}

function mean(samples: Sample[]): number {
  const total = samples.reduce((sum, s) => sum + s.rttMs, 0);
  return Math.round((total / Math.max(1, samples.length)) * 10) / 10;
}
