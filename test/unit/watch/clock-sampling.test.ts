import { describe, expect, it } from '@jest/globals';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { BUSY_CLOCK_SAMPLES } from '../../../src/probes/collect-options.js';
import {
  AGREED_CLOCK_SAMPLES,
  CLOCK_FULL_EVERY_MS,
  createClockSampling,
} from '../../../src/watch/clock-sampling.js';
import { clusterEvidence } from '../../support/evidence/evidence.js';

const report = (causes: string[] = []) =>
  ({ findings: causes.map((cause) => ({ cause, severity: 'warning' })) }) as unknown as DiagnosisReport;

const unread = clusterEvidence({
  'etcd-2': {
    clock: { ok: false, failure: { kind: 'timeout', message: 'no answer' }, durationMs: 3000 },
  } as never,
});

describe('clock samples of a watch check', () => {
  it('takes the full samples first, then one a member while the clocks agreed', () => {
    let now = 0;
    const sampling = createClockSampling(() => now);
    expect(sampling.samples('a')).toBe(BUSY_CLOCK_SAMPLES);
    sampling.after('a', BUSY_CLOCK_SAMPLES, report(), clusterEvidence());
    now += 60_000;
    expect(sampling.samples('a')).toBe(AGREED_CLOCK_SAMPLES);
    // A light check that agrees does not push the next full one further away.
    sampling.after('a', AGREED_CLOCK_SAMPLES, report(), clusterEvidence());
    expect(sampling.samples('b')).toBe(BUSY_CLOCK_SAMPLES);
    now = CLOCK_FULL_EVERY_MS;
    expect(sampling.samples('a')).toBe(BUSY_CLOCK_SAMPLES);
  });

  it('goes back to the full samples after a clock finding or a clock it could not read', () => {
    const sampling = createClockSampling(() => 0);
    sampling.after('a', BUSY_CLOCK_SAMPLES, report(), clusterEvidence());
    sampling.after('a', AGREED_CLOCK_SAMPLES, report(['clock-skew']), clusterEvidence());
    expect(sampling.samples('a')).toBe(BUSY_CLOCK_SAMPLES);
    sampling.after('a', BUSY_CLOCK_SAMPLES, report(), clusterEvidence());
    sampling.after('a', AGREED_CLOCK_SAMPLES, report(), unread);
    expect(sampling.samples('a')).toBe(BUSY_CLOCK_SAMPLES);
    sampling.after('a', BUSY_CLOCK_SAMPLES, report(), undefined);
    expect(sampling.samples('a')).toBe(BUSY_CLOCK_SAMPLES);
  });
});

describe('a slow clock answer in a light check', () => {
  it('sends the next check back to the full samples, so a stall is judged on a mean, not one answer', () => {
    const sampling = createClockSampling(() => 0);
    sampling.after('a', BUSY_CLOCK_SAMPLES, report(), clusterEvidence());
    expect(sampling.samples('a')).toBe(AGREED_CLOCK_SAMPLES);
    const slow = clusterEvidence({
      'etcd-3': {
        clock: {
          ok: true,
          data: { offsetMs: 5, uncertaintyMs: 50, rttMs: 40, maxRttMs: 40, meanRttMs: 40, samples: 1 },
          durationMs: 40,
        },
      } as never,
    });
    sampling.after('a', AGREED_CLOCK_SAMPLES, report(), slow);
    expect(sampling.samples('a')).toBe(BUSY_CLOCK_SAMPLES);
  });
});
