// Plain helpers, usable outside Jest too (the benchmarks use labDoctor); Jest hooks live in use-lab-doctor.ts.
import { readFile } from 'node:fs/promises';
import type { ConfigFile } from '../../../src/config/schema.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import type { EtcdLab } from './etcd-lab.js';
import { DIAGNOSIS_PROBES, labConfig } from './lab-config.js';

/** A doctor for the lab as cluster `lab`, with probe timings a fault diagnosis needs. */
export function labDoctor(lab: EtcdLab, probes: Partial<ConfigFile['probes']> = {}): Doctor {
  const config = labConfig(lab, { name: 'lab', probes: { ...DIAGNOSIS_PROBES, ...probes } });
  return createDoctor({ config, readFileBuffer: (p) => readFile(p) });
}
