import type { ReadLimits } from '../collection.js';
import { OfflineInputError } from '../../errors.js';
import { formatBytes } from '../../format.js';

/** What to share instead of a collection over a limit: the parts the rules read. */
export const SHARE_INSTEAD =
  'give the etcd and control-plane parts only (namespaces/openshift-etcd, etcd_info/ and cluster-scoped-resources/core/nodes of a must-gather)';

/** `input` holds a document over a limit of documents.ts (DocumentLimitError's `over`). */
export function documentRefused(input: string, source: string, over: string): OfflineInputError {
  const where = source === input ? input : `${source} in ${input}`;
  return new OfflineInputError(`${where} holds ${over}, over the limit for one document: ${SHARE_INSTEAD}`);
}

/**
 * Counts the uncompressed bytes one read takes in, all entries together: the gzip-bomb cap. A
 * tarball's bytes are counted as they leave gunzip, before any entry is looked at, so a skipped
 * entry (binary, outside the archive) counts too.
 */
export class ByteBudget {
  #used = 0;

  constructor(
    readonly input: string,
    readonly limits: ReadLimits,
  ) {}

  get used(): number {
    return this.#used;
  }

  take(bytes: number): void {
    this.#used += bytes;
    if (this.#used > this.limits.maxTotalBytes) {
      throw new OfflineInputError(
        `${this.input} unpacks to more than ${formatBytes(this.limits.maxTotalBytes, 'binary')}, over the ` +
          `${formatBytes(this.limits.maxTotalBytes, 'binary')} limit for one input: ${SHARE_INSTEAD}`,
      );
    }
  }
}
