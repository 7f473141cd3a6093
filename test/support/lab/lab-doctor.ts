// Plain helpers, usable outside Jest too (the benchmarks import labConfig); Jest hooks live in use-lab-doctor.ts.
import { readFile } from 'node:fs/promises';
import { configFileSchema, type ConfigFile } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import type { EtcdLab } from './etcd-lab.js';

/** A config with one cluster, `lab`, pointing at a real lab: client URLs plus each member's metrics listener. */
export function labConfig(
  lab: EtcdLab,
  probes: Partial<ConfigFile['probes']> = {},
  name = 'lab',
): ConfigFile {
  return configFileSchema.parse({
    clusters: [{ name, etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } }],
    probes: { timeoutMs: 3000, metricsWindowMs: 3000, ...probes },
  });
}

export function labDoctor(lab: EtcdLab, probes: Partial<ConfigFile['probes']> = {}): Doctor {
  return createDoctor({ config: labConfig(lab, probes), readFileBuffer: (p) => readFile(p) });
}
