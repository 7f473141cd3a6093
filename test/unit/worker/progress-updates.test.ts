import { describe, expect, it } from '@jest/globals';
import { createProgressUpdates } from '../../../src/worker/progress-updates.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('progress updates', () => {
  it('sends the first value at once, then only the newest, at most once per interval', async () => {
    const sent: number[] = [];
    const updates = createProgressUpdates(
      async (n: number) => {
        sent.push(n);
      },
      { minIntervalMs: 100 },
    );
    for (let i = 1; i <= 20; i += 1) updates.push(i);
    await sleep(20);
    expect(sent).toEqual([20]);
    updates.push(21);
    updates.push(22);
    await sleep(40);
    expect(sent).toEqual([20]);
    await sleep(100);
    expect(sent).toEqual([20, 22]);
    await updates.stop();
  });

  it('drops what is pending on stop and waits for the send in flight', async () => {
    const sent: number[] = [];
    let finished = false;
    const updates = createProgressUpdates(
      async (n: number) => {
        await sleep(30);
        sent.push(n);
        finished = true;
      },
      { minIntervalMs: 1000 },
    );
    updates.push(1);
    await sleep(5);
    updates.push(2);
    await updates.stop();
    expect(finished).toBe(true);
    updates.push(3);
    await sleep(20);
    expect(sent).toEqual([1]);
  });

  it('keeps going after a failed send', async () => {
    const errors: unknown[] = [];
    const sent: number[] = [];
    const updates = createProgressUpdates(
      async (n: number) => {
        if (n === 1) throw new Error('429');
        sent.push(n);
      },
      { minIntervalMs: 10, onError: (e) => errors.push(e) },
    );
    updates.push(1);
    await sleep(5);
    updates.push(2);
    await sleep(40);
    await updates.stop();
    expect(errors).toHaveLength(1);
    expect(sent).toEqual([2]);
  });
});
