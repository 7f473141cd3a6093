import { afterAll, beforeAll } from '@jest/globals';
import type { Doctor } from '../../../src/doctor.js';
import { type EtcdLab, type EtcdLabOptions, startEtcdLab } from './etcd-lab.js';
import { labDoctor } from './lab-doctor.js';

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
