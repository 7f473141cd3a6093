import { describe, expect, it } from '@jest/globals';
import { type Probe, runProbe } from '../../../src/probes/probe.js';

describe('runProbe with the run signal', () => {
  it('a cancelled run stops a probe that would wait for its 3 s deadline, and aborts its own signal', async () => {
    let probeSignal: AbortSignal | undefined;
    const hung: Probe<undefined, string> = {
      kind: 'status',
      asks: 'Status',
      timeoutMs: 3000,
      collect: (_ctx, signal) => {
        probeSignal = signal;
        return new Promise<string>(() => undefined);
      },
    };
    const run = new AbortController();
    const started = performance.now();
    const outcome = runProbe(hung, undefined, { subject: 'etcd-3', signal: run.signal });
    setTimeout(() => run.abort(new Error('client gave up')), 50);
    await expect(outcome).resolves.toMatchObject({
      ok: false,
      failure: { kind: 'skipped', message: 'etcd-3 was not asked Status: the check was cancelled' },
    });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(probeSignal?.aborted).toBe(true);
  });

  it('a probe that answers before any cancellation keeps its answer', async () => {
    const run = new AbortController();
    const quick: Probe<undefined, string> = {
      kind: 'status',
      asks: 'Status',
      timeoutMs: 3000,
      collect: async () => 'ok',
    };
    await expect(
      runProbe(quick, undefined, { subject: 'etcd-1', signal: run.signal }),
    ).resolves.toMatchObject({
      ok: true,
      data: 'ok',
    });
  });

  it('a probe that takes no signal (health, Status) is still cancelled at once, and never asked once cancelled', async () => {
    let asked = 0;
    const hung: Probe<undefined, string> = {
      kind: 'health',
      asks: 'a linearizable read',
      timeoutMs: 3000,
      takesNoSignal: true,
      collect: () => {
        asked += 1;
        return new Promise<string>(() => undefined);
      },
    };
    const run = new AbortController();
    const outcome = runProbe(hung, undefined, { subject: 'etcd-2', signal: run.signal });
    setTimeout(() => run.abort(new Error('client gave up')), 20);
    await expect(outcome).resolves.toMatchObject({
      ok: false,
      failure: {
        kind: 'skipped',
        message: 'etcd-2 was not asked a linearizable read: the check was cancelled',
      },
    });
    await expect(runProbe(hung, undefined, { subject: 'etcd-2', signal: run.signal })).resolves.toMatchObject(
      {
        ok: false,
        failure: { kind: 'skipped' },
      },
    );
    expect(asked).toBe(1);
  });
});
