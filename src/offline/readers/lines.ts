const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into lines (`\n` or `\r\n`), one pass, without holding more than one line:
 * a line longer than `maxLineBytes` is cut to its first `maxLineBytes` bytes and the rest of it
 * dropped. A last line without a newline is still yielded.
 */
export async function* splitLines(
  chunks: AsyncIterable<Buffer>,
  maxLineBytes: number,
): AsyncGenerator<string> {
  let carry: Buffer[] = [];
  let carryBytes = 0;
  for await (const chunk of chunks) {
    let start = 0;
    let end = chunk.indexOf(NEWLINE, start);
    while (end !== -1) {
      if (carryBytes === 0) yield decode(chunk, start, Math.min(end, start + maxLineBytes));
      else {
        carry.push(chunk.subarray(start, Math.min(end, start + Math.max(0, maxLineBytes - carryBytes))));
        yield decode(Buffer.concat(carry), 0, maxLineBytes);
        carry = [];
        carryBytes = 0;
      }
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length && carryBytes < maxLineBytes) {
      const piece = chunk.subarray(start, start + (maxLineBytes - carryBytes));
      carry.push(Buffer.from(piece)); // a copy: the reader may reuse the chunk's memory
      carryBytes += piece.length;
    }
  }
  if (carryBytes > 0) yield decode(Buffer.concat(carry), 0, maxLineBytes);
}

function decode(buf: Buffer, start: number, end: number): string {
  const stop = Math.min(end, buf.length);
  return buf.toString('utf8', start, stop > start && buf[stop - 1] === CR ? stop - 1 : stop);
}
