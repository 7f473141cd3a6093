import type { ReadLimits } from './collection.js';
import type { ReadSnapshotOptions } from '../etcd/snapshot/read-snapshot.js';

/** What the parent asks of an analysis process (analyze-child.ts), its first and only message. */
export type IsolatedRequest =
  | { op: 'analyze'; paths: string[]; limits?: ReadLimits; explain?: boolean }
  | { op: 'verify-snapshot'; path: string; pages: NonNullable<ReadSnapshotOptions['pages']> };

/** The process's one answer: the value, or the error it threw (its class by name, for input errors). */
export type IsolatedAnswer =
  | { ok: true; value: unknown }
  | {
      ok: false;
      /** `SnapshotError`, `OfflineInputError`, `EtcdDoctorError`, or another class for a bug. */
      name: string;
      message: string;
      /** An EtcdDoctorError: the answer for the user, not a bug. */
      input: boolean;
      /** An allocation refused under the process's memory limit (a RangeError from Node). */
      outOfMemory: boolean;
    };
