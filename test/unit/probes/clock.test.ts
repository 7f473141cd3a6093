import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHttpGet } from '../../../src/clients/http.js';
import { createClockProbe, MAX_SAMPLES } from '../../../src/probes/clock.js';
import type { ClockData } from '../../../src/probes/evidence.js';
import { runProbe } from '../../../src/probes/probe.js';
import { clockProbeContext } from '../../support/clock/clock-context.js';
import { type DateOffsetServer, startDateOffsetServer } from '../../support/clock/date-offset-server.js';

describe('clock probe against a real HTTP server whose Date runs off our clock', () => {
  let server: DateOffsetServer;
  const http = createHttpGet(undefined);

  beforeAll(async () => {
    server = await startDateOffsetServer({ offsetMs: 0 });
    // As the doctor does before a diagnose: the first timed GET must not time loading undici.
    await http.ready();
  });
  afterAll(async () => {
    await http.close();
    await server?.close();
  });

  async function measure(offsetMs: number): Promise<ClockData> {
    server.offsetMs = offsetMs;
    const ctx = clockProbeContext('fake-etcd', `${server.url}/`, http.get);
    const outcome = await runProbe(createClockProbe(3000), ctx, { subject: 'fake-etcd' });
    if (!outcome.ok) throw new Error(`clock probe failed: ${outcome.failure.message}`);
    return outcome.data;
  }

  it.each([2500, -8000, 0])(
    'reads a clock %i ms off to within its own stated uncertainty',
    async (offsetMs) => {
      const before = server.requests;
      const data = await measure(offsetMs);
      expect(Math.abs(data.offsetMs - offsetMs)).toBeLessThanOrEqual(data.uncertaintyMs);
      // It waited for the Date header to tick over, instead of settling for one ±500 ms sample
      // (the bound is the tick's round trip, which a loaded 2-core CI host can stretch).
      expect(data.uncertaintyMs).toBeLessThan(500);
      expect(data.samples).toBeGreaterThanOrEqual(2);
      expect(data.samples).toBeLessThanOrEqual(MAX_SAMPLES);
      expect(server.requests - before).toBe(data.samples);
      expect(data.rttMs).toBeLessThan(500);
    },
  );

  it('fails with a clear message when the server sends no Date header', async () => {
    const bare = createServer((_req, res) => {
      res.sendDate = false;
      res.end('{}');
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
      const outcome = await runProbe(createClockProbe(3000), clockProbeContext('bare', url, http.get), {
        subject: 'bare',
      });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok)
        expect(outcome.failure.message).toBe('bare: sent no usable Date header on /version (HTTP 200)');
    } finally {
      bare.closeAllConnections();
      await new Promise<void>((resolve) => bare.close(() => resolve()));
    }
  });
});
