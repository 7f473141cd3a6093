/** `items` in runs of `size` (the last may be shorter). */
export function chunkBy<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  );
}

/** Lines in groups of at most `max` characters, counting a newline each (a longer line is cut); slack/blocks.ts chunkLines joins them into section texts instead. */
export function groupLines(lines: string[], max: number): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const raw of lines) {
    const line = raw.length > max ? `${raw.slice(0, max - 1)}…` : raw;
    if (current.length && size + line.length + 1 > max) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(line);
    size += line.length + 1;
  }
  if (current.length) chunks.push(current);
  return chunks;
}
