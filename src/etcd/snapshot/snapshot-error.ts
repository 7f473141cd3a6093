import { OfflineInputError } from '../../errors.js';

/**
 * A snapshot file etcd-doctor cannot read, said in one line naming what is wrong: truncated, a
 * damaged page, not a snapshot at all. The CLI prints it with exit code 2, as other bad input.
 */
export class SnapshotError extends OfflineInputError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SnapshotError';
  }
}
