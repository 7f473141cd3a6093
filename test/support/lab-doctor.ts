import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll } from '@jest/globals';
import { configFileSchema, type ConfigFile } from '../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../src/doctor.js';
import { type EtcdLab, type EtcdLabOptions, startEtcdLab } from '../../src/lab/etcd-lab.js';

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

/**
 * A real lab and a Doctor for it (cluster `lab`), started before the enclosing describe block's
 * tests and stopped after them. Read `.lab` and `.doctor` inside tests and hooks.
 */
export function useLabDoctor(opts: EtcdLabOptions = {}): { readonly lab: EtcdLab; readonly doctor: Doctor } {
  let lab: EtcdLab | undefined;
  let doctor: Doctor | undefined;
  beforeAll(async () => {
    lab = await startEtcdLab(opts);
    doctor = labDoctor(lab);
  });
  afterAll(async () => {
    await doctor?.close();
    await lab?.destroy();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the lab starts in beforeAll: read it inside a test or hook');
    return value;
  };
  return {
    get lab() {
      return started(lab);
    },
    get doctor() {
      return started(doctor);
    },
  };
}
