import { describe, expect, it } from '@jest/globals';
import { collectScenario } from '../../support/kube/kube-evidence.js';

/*
 * The apiserver's /metrics read at both ends of the probe window (issue 39), through the real
 * Kubernetes client against the fake apiserver, whose list-storm counters advance with time
 * (test/support/kube/growing-metrics.ts): 3 LISTs of pods a second, 85 MB each.
 */
describe("the apiserver's /metrics over a window", () => {
  it('two reads 1 s apart: the LISTs and flows of that second, beside the since-start counters', async () => {
    const run = await collectScenario('list-storm', { settings: { metricsWindowMs: 1000 } });
    await run.fake.close();
    const a = run.kubernetes.apiserver;
    const lists = a.ok && a.data.etcdRequests.ok ? a.data.etcdRequests.data.lists : undefined;
    const w = lists?.window;
    expect(w?.reset).toBe(false);
    // The window is the time between the two GETs: the 1 s wait and the first GET's answer.
    expect(w?.seconds).toBeGreaterThanOrEqual(1);
    expect(w?.seconds).toBeLessThan(3);
    const pods = w?.resources.find((r) => r.resource === 'pods');
    const lists3 = pods?.listsByScope.cluster ?? 0;
    // 3 a second over 1–3 s: whole LISTs only, 3 to 9.
    expect(lists3).toBeGreaterThanOrEqual(3);
    expect(lists3).toBeLessThanOrEqual(9);
    expect(pods?.responseBytes).toBe(lists3 * 85e6);
    expect(pods?.fetchedObjects).toBe(lists3 * 40_000);
    expect(w?.flows.find((f) => f.flowSchema === 'service-accounts')?.dispatched).toBeGreaterThanOrEqual(
      lists3,
    );
    // The probe waited out the window, once.
    expect(run.fake.requests('/metrics')).toHaveLength(2);
  });

  it('without a window (a watch check, a digest): one read, counters since the apiserver started', async () => {
    const run = await collectScenario('list-storm');
    await run.fake.close();
    const a = run.kubernetes.apiserver;
    const lists = a.ok && a.data.etcdRequests.ok ? a.data.etcdRequests.data.lists : undefined;
    expect(lists?.window).toBeUndefined();
    expect(lists?.resources.find((r) => r.resource === 'pods')?.listsByScope.cluster).toBeGreaterThanOrEqual(
      21600,
    );
    expect(run.fake.requests('/metrics')).toHaveLength(1);
  });
});
