import { availableParallelism, loadavg } from 'node:os';

/**
 * Load per core at or above which the lab's etcd members, which share this host's cores with the
 * suite, are themselves short of CPU: their slow applies and late heartbeats are then real, and
 * `cpu-starvation` on them is a true finding about the lab, not a false one.
 */
export const LOADED_HOST_PER_CORE = 2;

/** The host's 1-minute load average per core, measured now. */
export function hostLoadPerCore(): number {
  return (loadavg()[0] ?? 0) / availableParallelism();
}

/** Whether this host was loaded enough in the last minute to starve the lab's members of CPU. */
export function hostStarvesLab(): boolean {
  return hostLoadPerCore() >= LOADED_HOST_PER_CORE;
}
