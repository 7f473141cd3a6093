/** The newest `maxBytes` of a byte stream (an etcd member's stderr), oldest chunks dropped first. */
export interface LogRing {
  append(chunk: Buffer): void;
  text(): string;
}

export function createLogRing(maxBytes: number): LogRing {
  const chunks: Buffer[] = [];
  let size = 0;
  let trimmed = false;
  return {
    append(chunk) {
      chunks.push(chunk);
      size += chunk.length;
      while (size > maxBytes && chunks.length > 1) {
        size -= chunks.shift()?.length ?? 0;
        trimmed = true;
      }
    },
    text() {
      const all = Buffer.concat(chunks).toString('utf8');
      // After trimming, the first line is probably cut; zap lines are only useful whole.
      return trimmed ? all.slice(all.indexOf('\n') + 1) : all;
    },
  };
}
