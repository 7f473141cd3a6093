import { describe, expect, it } from '@jest/globals';
import {
  clusterCostBytes,
  createDigestBudgets,
  createMemoryBudget,
  defaultBudgetBytes,
  windowCostBytes,
} from '../../../src/digest/memory-budget.js';

/** A run that ends when the test says so. */
function gate() {
  let open: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { done, open };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('the digest memory budget', () => {
  it('admits runs while their costs fit, in order, and the next as soon as one ends', async () => {
    const budget = createMemoryBudget(10);
    const gates = Array.from({ length: 6 }, gate);
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      budget.run(4, async () => {
        started.push(i);
        await g.done;
        return i;
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    expect(budget.inUse()).toEqual({ bytes: 8, runs: 2 });
    gates[1]?.open();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(budget.inUse()).toEqual({ bytes: 0, runs: 0 });
  });

  it('runs a cluster dearer than the whole budget alone, and a failed run gives its share back', async () => {
    const budget = createMemoryBudget(10, 5);
    const big = gate();
    const order: string[] = [];
    const a = budget.run(25, async () => {
      order.push('big');
      await big.done;
    });
    const b = budget.run(1, async () => {
      order.push('small');
      throw new Error('probe failed');
    });
    await settle();
    expect(order).toEqual(['big']);
    big.open();
    await a;
    await expect(b).rejects.toThrow('probe failed');
    expect(order).toEqual(['big', 'small']);
    expect(budget.inUse()).toEqual({ bytes: 0, runs: 0 });
  });

  it('also caps the count (digest.concurrency)', async () => {
    const budget = createMemoryBudget(1000, 2);
    const g = gate();
    let most = 0;
    const runs = Array.from({ length: 5 }, () =>
      budget.run(1, async () => {
        most = Math.max(most, budget.inUse().runs);
        await g.done;
      }),
    );
    await settle();
    g.open();
    await Promise.all(runs);
    expect(most).toBe(2);
  });

  it('defaults to a sixth of the heap limit, never above 64 MiB however big the heap, and costs grow with members', () => {
    expect(defaultBudgetBytes(256 * 1024 * 1024)).toBe(Math.floor((256 * 1024 * 1024) / 6));
    // A laptop's default heap (a quarter of 24 GiB, or 4 GiB): the same 64 MiB.
    expect(defaultBudgetBytes(4096 * 1024 * 1024)).toBe(64 * 1024 * 1024);
    expect(defaultBudgetBytes(6 * 1024 ** 3)).toBe(64 * 1024 * 1024);
    expect(clusterCostBytes(5)).toBeGreaterThan(clusterCostBytes(3));
    // A cluster waiting out its window holds its kept scrapes only: far less than a run.
    expect(windowCostBytes(3) * 10).toBeLessThan(clusterCostBytes(3));
  });

  it('splits the digest budget: waiting clusters never take the room runs need, and a run never waits on a window', async () => {
    const { runs, windows } = createDigestBudgets(8 * 1000, 1000);
    expect(windows.budgetBytes).toBe(1000);
    expect(runs.budgetBytes).toBe(7000);
    // Windows full: a run still starts at once.
    const release = await windows.acquire(1000);
    await expect(runs.run(7000, async () => 'ran')).resolves.toBe('ran');
    release();
    release(); // given back once only
    expect(windows.inUse()).toEqual({ bytes: 0, runs: 0 });
  });
});
