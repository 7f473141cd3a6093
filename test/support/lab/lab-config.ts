import { type ConfigFile, configFileSchema } from '../../../src/config/schema.js';
import type { EtcdLab } from './etcd-lab.js';

/** Probe timings for chat, role and queue tests: a hung member costs a second, not three. */
export const QUICK_PROBES = { timeoutMs: 1000, metricsWindowMs: 300 };
/** Probe timings for diagnosing a fault: a 3 s /metrics window holds enough fsyncs for a p99. */
export const DIAGNOSIS_PROBES = { timeoutMs: 3000, metricsWindowMs: 3000 };

export interface LabConfigOptions {
  /** The lab's cluster name: `local` unless a test names it. */
  name?: string;
  /** More clusters after the lab (a dead one, a TLS one). */
  extra?: unknown[];
  /** Over QUICK_PROBES. */
  probes?: Partial<ConfigFile['probes']>;
}

/**
 * The one config naming the lab (client URLs plus each member's metrics listener), for tests,
 * benchmarks and scripts alike; labDoctor builds on it with DIAGNOSIS_PROBES.
 */
export function labConfig(
  lab: EtcdLab,
  { name = 'local', extra = [], probes = {} }: LabConfigOptions = {},
): ConfigFile {
  return configFileSchema.parse({
    clusters: [{ name, etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } }, ...extra],
    probes: { ...QUICK_PROBES, ...probes },
  });
}

export function labConfigYaml(lab: EtcdLab, probes = QUICK_PROBES): string {
  const list = (items: string[]) => `[${items.join(', ')}]`;
  return [
    'clusters:',
    '  - name: local',
    '    etcd:',
    `      endpoints: ${list(lab.endpoints)}`,
    `      metricsUrls: ${list(lab.metricsUrls)}`,
    'probes:',
    `  timeoutMs: ${probes.timeoutMs}`,
    `  metricsWindowMs: ${probes.metricsWindowMs}`,
    '',
  ].join('\n');
}
