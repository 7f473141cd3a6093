/** Small helpers shared by the benchmarks: medians, percentiles, markdown rows. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const median = (values: number[]): number => percentile(values, 50);

export function ms(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

export function row(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

export async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Runs `fn` `runs` times after `warmup` untimed runs; returns each run's wall time in ms. */
export async function sample(runs: number, warmup: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timeIt(fn));
  return times;
}
