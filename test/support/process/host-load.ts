import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/**
 * Load per core at or above which the lab's etcd members, which share this host's cores with the
 * suite, are themselves short of CPU: their slow applies and late heartbeats are then real, and
 * `cpu-starvation` on them is a true finding about the lab, not a false one.
 */
export const LOADED_HOST_PER_CORE = 2;

/**
 * The same from Linux's pressure stall information: tasks waited for a CPU this share of the last
 * 10 s or 60 s (/proc/pressure/cpu `some`). The load average is a 1-minute decaying mean, so a
 * suite that has just started a dozen labs is starving them seconds before the load average says
 * so (a digest test at the start of CI: DEGRADED by cpu-starvation under 2 per core); PSI's 10 s
 * window sees it then. A quiet host stays at a few percent.
 */
export const STALLED_SHARE = 30;

/** The host's 1-minute load average per core, measured now. */
export function hostLoadPerCore(): number {
  return (loadavg()[0] ?? 0) / availableParallelism();
}

/** The larger of PSI cpu `some` avg10 and avg60 (percent), or undefined without /proc/pressure. */
export function cpuStalledShare(): number | undefined {
  try {
    const some = readFileSync('/proc/pressure/cpu', 'utf8').split('\n')[0] ?? '';
    const avg = (window: string) =>
      Number(new RegExp(`avg${window}=([\\d.]+)`).exec(some)?.[1] ?? Number.NaN);
    const share = Math.max(avg('10'), avg('60'));
    return Number.isNaN(share) ? undefined : share;
  } catch {
    return undefined;
  }
}

/** What the host measured, for an assertion's message. */
export function hostLoad(): { loadPerCore: number; cpuStalledPercent: number | undefined } {
  return { loadPerCore: hostLoadPerCore(), cpuStalledPercent: cpuStalledShare() };
}

/** Whether this host was loaded enough lately to starve the lab's members of CPU. */
export function hostStarvesLab(): boolean {
  return hostLoadPerCore() >= LOADED_HOST_PER_CORE || (cpuStalledShare() ?? 0) >= STALLED_SHARE;
}
