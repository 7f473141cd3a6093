/** `0.2123` s -> `212 ms`; `1.5` s -> `1.5 s`. */
export function formatSecondsAsMs(seconds: number | undefined): string {
  if (seconds === undefined) return 'n/a';
  return formatMs(seconds * 1000);
}

/** `212.4` -> `212 ms`, `3.21` -> `3.2 ms`, `1500` -> `1.5 s`. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || Number.isNaN(ms)) return 'n/a';
  if (ms >= 1000) return `${Number((ms / 1000).toFixed(ms >= 100_000 ? 0 : 1))} s`;
  if (ms >= 10) return `${Math.round(ms)} ms`;
  // A sub-millisecond mean is not "0 ms": say that it is under what one decimal shows.
  if (ms > 0 && ms < 0.05) return '< 0.1 ms';
  return `${Number(ms.toFixed(1))} ms`;
}

/** How long something lasted or waited: `45 s` under two minutes, `25 min` under two hours, else `2 h 05 min`. */
export function formatDuration(ms: number): string {
  if (ms < 120_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** How old something is: `40 s`, `12 min`, `5.0 h`, `30.0 h`, `3.1 days` (hours to one decimal under two days). */
export function formatAge(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  const hours = s / 3600;
  return hours < 48 ? `${hours.toFixed(1)} h` : `${(hours / 24).toFixed(1)} days`;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
const BINARY_UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * Sizes of data (a database, a member's memory, a page) in decimal units, as etcdctl prints db size:
 * `54 MB`, `800 KB`. `binary` is for limits set in powers of two (a 64 MiB cap, a 2 GiB quota), which
 * it says exactly: `64 MiB`, `1.5 GiB`.
 */
export function formatBytes(bytes: number | undefined, units: 'decimal' | 'binary' = 'decimal'): string {
  if (bytes === undefined || Number.isNaN(bytes)) return 'n/a';
  const [step, names] = units === 'binary' ? [1024, BINARY_UNITS] : [1000, UNITS];
  let value = bytes;
  let unit = 0;
  while (value >= step && unit < names.length - 1) {
    value /= step;
    unit++;
  }
  const digits = units === 'binary' ? 1 : value >= 100 || unit === 0 ? 0 : 1;
  return `${Number(value.toFixed(unit === 0 ? 0 : digits))} ${names[unit]}`;
}

export function formatPercent(ratio: number): string {
  return `${Math.round(ratio * 100)} %`;
}

/** `52,341`: counts as etcdctl's users read them. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `etcd-1`, `etcd-1 and etcd-2`, `etcd-1, etcd-2 and etcd-3`. */
export function formatList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * C0 control characters but newline and tab, DEL, and the C1 controls (0x9b is a one-byte CSI):
 * what a terminal acts on instead of printing.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text for a terminal: a log line in a report must not retitle the terminal (OSC), erase lines or
 * colour a fake "all healthy" (CSI). Every text renderer (the CLI, analyze, the shell, watch) passes
 * its output through this; etcd-doctor's own screen control is added after it.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_CONTROLS, '');
}
