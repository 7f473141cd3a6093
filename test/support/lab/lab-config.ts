import { type ConfigFile, configFileSchema } from '../../../src/config/schema.js';
import type { EtcdLab } from './etcd-lab.js';

/**
 * A config naming the lab as cluster `local` (plus any extra clusters), with short probe timeouts
 * so a hung member costs a second, not three.
 */
export function labConfig(
  lab: EtcdLab,
  extra: unknown[] = [],
  probes = { timeoutMs: 1000, metricsWindowMs: 300 },
): ConfigFile {
  return configFileSchema.parse({
    clusters: [{ name: 'local', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } }, ...extra],
    probes,
  });
}

export function labConfigYaml(lab: EtcdLab, probes = { timeoutMs: 1000, metricsWindowMs: 300 }): string {
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
