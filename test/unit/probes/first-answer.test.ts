import { describe, expect, it } from '@jest/globals';
import { firstAnswer } from '../../../src/probes/cluster-context.js';

/**
 * A cluster-wide question (MemberList) goes to every member at once, or, in a watch check, to one
 * member first and to the others only when it fails or is slow (two RPCs fewer a check).
 */
function members(answers: Record<string, { afterMs: number; fails?: boolean }>) {
  const asked: string[] = [];
  const ask = (endpoint: string) => {
    asked.push(endpoint);
    const a = answers[endpoint] ?? { afterMs: 0 };
    return new Promise<string>((resolve, reject) =>
      setTimeout(() => (a.fails ? reject(new Error(`${endpoint} refused`)) : resolve(endpoint)), a.afterMs),
    );
  };
  return { asked, ask };
}

describe('firstAnswer', () => {
  it('asks every member at once without a hedge', async () => {
    const m = members({ a: { afterMs: 50 }, b: { afterMs: 5 }, c: { afterMs: 30 } });
    await expect(firstAnswer(['a', 'b', 'c'], m.ask)).resolves.toBe('b');
    expect(m.asked).toEqual(['a', 'b', 'c']);
  });

  it('with a hedge, asks only the first member when it answers in time', async () => {
    const m = members({ a: { afterMs: 5 } });
    await expect(firstAnswer(['a', 'b', 'c'], m.ask, 200)).resolves.toBe('a');
    await new Promise((r) => setTimeout(r, 250));
    expect(m.asked).toEqual(['a']);
  });

  it('asks the others at once when the first fails', async () => {
    const m = members({ a: { afterMs: 0, fails: true }, b: { afterMs: 5 }, c: { afterMs: 5 } });
    const started = performance.now();
    await expect(firstAnswer(['a', 'b', 'c'], m.ask, 1000)).resolves.toMatch(/^[bc]$/);
    expect(performance.now() - started).toBeLessThan(900);
    expect(m.asked).toEqual(['a', 'b', 'c']);
  });

  it('asks the others after the hedge when the first hangs, and the first answer wins', async () => {
    const m = members({ a: { afterMs: 600 }, b: { afterMs: 5 }, c: { afterMs: 5 } });
    const started = performance.now();
    await expect(firstAnswer(['a', 'b', 'c'], m.ask, 100)).resolves.toMatch(/^[bc]$/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(m.asked).toEqual(['a', 'b', 'c']);
  });

  it('fails with a member error (not a deadline) when every member fails', async () => {
    const m = members({ a: { afterMs: 0, fails: true }, b: { afterMs: 0, fails: true } });
    await expect(firstAnswer(['a', 'b'], m.ask, 100)).rejects.toThrow(/refused/);
  });
});
