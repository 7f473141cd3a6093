/**
 * Text from outside (a file's entry paths and bucket names, a log line, an error about either) is
 * cut before any regex reads it or any message carries it: a 200,000-character entry path made two
 * regexes hold the worker's main thread for 48 s, and the CLI print all of it. Both cuts are one
 * linear pass.
 */

/** The longest run without whitespace a message keeps: a path or a name, not a file's worth. */
export const MAX_RUN_CHARS = 200;

/** `text` at most `max` characters, its middle given as `…(N characters)…` when cut. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const mark = `…(${(text.length - max).toLocaleString('en-US')} characters)…`;
  const keep = Math.max(0, max - mark.length);
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}${mark}${text.slice(text.length - (keep - head))}`;
}

/** Every run of non-whitespace over `maxRun` characters cut in its middle (cutText); the rest as it was. */
export function cutLongRuns(text: string, maxRun = MAX_RUN_CHARS): string {
  let out = '';
  let start = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    const space = code === 32 || (code >= 9 && code <= 13);
    if (!space) continue;
    if (i - runStart > maxRun) {
      out += text.slice(start, runStart) + cutText(text.slice(runStart, i), maxRun);
      start = i;
    }
    runStart = i + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

/** A message for a human from untrusted parts: long runs cut, then the whole at most `max` characters. */
export function boundedMessage(text: string, max: number): string {
  return cutText(cutLongRuns(text), max);
}
