import type { Readable } from 'node:stream';

/**
 * The lines of a text stream, each cut to `maxLineChars`: node:readline holds a whole line
 * however long it is, and a pasted minified blob must not hold memory. The newline is dropped.
 */
export async function* readLines(
  stream: AsyncIterable<string | Buffer> & Partial<Pick<Readable, 'setEncoding'>>,
  maxLineChars: number,
): AsyncGenerator<string> {
  stream.setEncoding?.('utf8');
  const decoder = new TextDecoder();
  let partial = '';
  let cut = false;
  for await (const chunk of stream) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      yield cut ? partial : (partial + text.slice(start, nl)).slice(0, maxLineChars);
      partial = '';
      cut = false;
      start = nl + 1;
    }
    if (!cut) {
      partial += text.slice(start);
      if (partial.length > maxLineChars) {
        partial = partial.slice(0, maxLineChars);
        cut = true;
      }
    }
  }
  if (partial.length > 0) yield partial;
}
