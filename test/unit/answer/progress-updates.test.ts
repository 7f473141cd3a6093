import { describe, expect, it } from '@jest/globals';
import { createProgressUpdates } from '../../../src/answer/progress-updates.js';
import { createManualClock, settled } from '../../support/clock/manual-clock.js';

describe('progress updates', () => {
  it('sends the first value at once, then only the newest, at most once per interval', async () => {
    const clock = createManualClock();
    const sent: number[] = [];
    const updates = createProgressUpdates(
      async (n: number) => {
        sent.push(n);
      },
      { minIntervalMs: 100, now: clock.now, setTimer: clock.setTimer },
    );
    for (let i = 1; i <= 20; i += 1) updates.push(i);
    await clock.advance(0);
    expect(sent).toEqual([20]);
    updates.push(21);
    updates.push(22);
    await clock.advance(99);
    expect(sent).toEqual([20]);
    await clock.advance(1);
    expect(sent).toEqual([20, 22]);
    await updates.stop();
  });

  it('drops what is pending on stop and waits for the send in flight', async () => {
    const clock = createManualClock();
    const started: number[] = [];
    const sent: number[] = [];
    let finishSend = (): void => undefined;
    const updates = createProgressUpdates(
      async (n: number) => {
        started.push(n);
        await new Promise<void>((resolve) => {
          finishSend = resolve;
        });
        sent.push(n);
      },
      { minIntervalMs: 1000, now: clock.now, setTimer: clock.setTimer },
    );
    updates.push(1);
    await clock.advance(0);
    expect(started).toEqual([1]);
    updates.push(2);
    let stopped = false;
    const stopping = updates.stop().then(() => {
      stopped = true;
    });
    await settled();
    expect(stopped).toBe(false);
    finishSend();
    await stopping;
    expect(sent).toEqual([1]);
    updates.push(3);
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(5000);
    expect(started).toEqual([1]);
  });

  it('keeps going after a failed send', async () => {
    const clock = createManualClock();
    const errors: unknown[] = [];
    const sent: number[] = [];
    const updates = createProgressUpdates(
      async (n: number) => {
        if (n === 1) throw new Error('429');
        sent.push(n);
      },
      { minIntervalMs: 10, now: clock.now, setTimer: clock.setTimer, onError: (e) => errors.push(e) },
    );
    updates.push(1);
    await clock.advance(0);
    updates.push(2);
    await clock.advance(10);
    await updates.stop();
    expect(errors).toHaveLength(1);
    expect(sent).toEqual([2]);
  });
});
