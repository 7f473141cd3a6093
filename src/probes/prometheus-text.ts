/**
 * Prometheus text exposition (format 0.0.4), read a line at a time as it arrives: lines split in
 * strings or in the arriving buffers, a metric name's end found by character code, and the sample
 * lines read into samples by name with the rules of parse-prometheus-text-format 1.1.1 (the
 * reference reading in test/support/probes/reference-metrics.ts checks them). What is kept of a
 * page is etcd-metrics.ts's choice.
 */

export interface Sample {
  labels: Readonly<Record<string, string>>;
  value: number;
}
export type Samples = ReadonlyMap<string, readonly Sample[]>;

/** Whether buf holds `name` (ASCII) at `from`. */
export function bytesStartWith(buf: Buffer, from: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (buf[from + i] !== name.charCodeAt(i)) return false;
  return true;
}

/** metricNameEnd on bytes. */
export function nameEndInBytes(buf: Buffer, from: number, to: number): number {
  let i = from;
  for (; i < to; i++) {
    const c = buf[i] ?? 0;
    const nameStart = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58;
    if (!nameStart && (i === from || c < 48 || c > 57)) break;
  }
  return i;
}

/** A byte at a line's edge that trim() might remove, as edgeMayBeSpace judges a character. */
export function edgeMayBeSpaceByte(b: number): boolean {
  return b <= SPACE || b > 126;
}

/** The complete lines of `rest + chunk` as ranges (the first joined); returns the unfinished line. */
export function eachLineInBytes(
  rest: Buffer | undefined,
  chunk: Buffer,
  lineAt: (buf: Buffer, from: number, to: number) => void,
): Buffer | undefined {
  let start = 0;
  if (rest) {
    const nl = chunk.indexOf(NEWLINE);
    if (nl === -1) return Buffer.concat([rest, chunk]);
    const joined = Buffer.concat([rest, chunk.subarray(0, nl)]);
    lineAt(joined, 0, joined.length);
    start = nl + 1;
  }
  for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
    lineAt(chunk, start, nl);
    start = nl + 1;
  }
  // A copy: the rest of a line must not keep the whole chunk alive.
  return start < chunk.length ? Buffer.from(chunk.subarray(start)) : undefined;
}

/**
 * The complete lines of `rest + chunk`: the first (joined with `rest`) as a string, the others as
 * ranges of `chunk`. Returns the new unfinished line.
 */
export function eachLine(
  rest: string,
  chunk: string,
  line: (text: string) => void,
  lineAt: (text: string, from: number, to: number) => void,
): string {
  let start = 0;
  if (rest !== '') {
    const nl = chunk.indexOf('\n');
    if (nl === -1) return rest + chunk;
    line(rest + chunk.slice(0, nl));
    start = nl + 1;
  }
  for (let nl = chunk.indexOf('\n', start); nl !== -1; nl = chunk.indexOf('\n', start)) {
    lineAt(chunk, start, nl);
    start = nl + 1;
  }
  return chunk.slice(start);
}

// A line is blank, a comment, or a metric name followed by labels or a space (Prometheus text
// format 0.0.4): SAMPLE_OR_COMMENT = /^(?:$|#|[a-zA-Z_:][a-zA-Z0-9_:]*[{ \t])/ on the trimmed line,
// checked by char code in createMetricsLineFilter.
export const HASH = 35;
export const OPEN_BRACE = 123;
export const SPACE = 32;
export const TAB = 9;
export const NEWLINE = 10;

/** The end of the metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) starting at `from`; `from` if none. */
export function metricNameEnd(text: string, from: number, to: number): number {
  let i = from;
  for (; i < to; i++) {
    const c = text.charCodeAt(i);
    const nameStart = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58;
    if (!nameStart && (i === from || c < 48 || c > 57)) break;
  }
  return i;
}

/** What may follow a metric name: its labels or the space before its value. */
export function isNameEnd(c: number): boolean {
  return c === OPEN_BRACE || c === SPACE || c === TAB;
}

/** Whether trim() could change text[from, to): an ASCII control or space, or any non-ASCII, at either end. */
export function edgeMayBeSpace(text: string, from = 0, to = text.length): boolean {
  if (from >= to) return false;
  const first = text.charCodeAt(from);
  const last = text.charCodeAt(to - 1);
  return first <= SPACE || first > 126 || last <= SPACE || last > 126;
}
// Go's strconv.ParseFloat forms that Prometheus writes: decimals, exponents, ±Inf, NaN.
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/** Whether buf holds `bytes` at `at`. */
export function bytesAt(buf: Buffer, at: number, bytes: Buffer): boolean {
  if (at + bytes.length > buf.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}

export type ReadResult = { ok: true; samples: Samples } | { ok: false; error: string };

/**
 * The kept lines (filtered and checked by createMetricsLineFilter) as samples by name, read
 * directly: the same samples parse-prometheus-text-format gives for them (readWithLibrary, the
 * reference), without its family objects. Its rules, kept: a line is trimmed; consecutive samples
 * of one name with the same labels are one sample (the last value wins); an invalid line is named
 * before any bad value.
 */
export function readKeptLines(kept: string[]): ReadResult {
  const samples = new Map<string, Sample[]>();
  let badValue: { name: string; value: string } | undefined;
  let runName = '';
  let run: Sample[] = [];
  for (const raw of kept) {
    const line = raw.trim();
    const parsed = plainSampleLine(line) ?? parseSampleLine(line);
    if (!parsed) return { ok: false, error: `invalid line ${clip(line)}` };
    const value = parseFloatText(parsed.value);
    if (value === undefined) {
      badValue ??= { name: parsed.name, value: parsed.value };
      continue;
    }
    if (parsed.name !== runName) {
      runName = parsed.name;
      run = [];
    }
    const last = run.at(-1);
    if (last && sameLabels(last.labels, parsed.labels)) {
      last.value = value;
      continue;
    }
    const sample = { labels: parsed.labels, value };
    run.push(sample);
    const list = samples.get(parsed.name);
    if (list) list.push(sample);
    else samples.set(parsed.name, [sample]);
  }
  if (badValue) return { ok: false, error: `${badValue.name} has the value ${clip(badValue.value)}` };
  return { ok: true, samples };
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * The lines etcd writes (`name value` or `name{a="x",b="y"} value`: no escape, no tab, single
 * spaces) read with indexOf and slices; anything else is left to parseSampleLine, which reads
 * these the same way a character at a time (test/unit/probes/etcd-metrics-filtered.test.ts).
 */
function plainSampleLine(
  line: string,
): { name: string; labels: Record<string, string>; value: string } | undefined {
  if (line.includes('\\') || line.includes('\t')) return undefined;
  const space = line.indexOf(' ');
  const brace = line.indexOf('{');
  const labels: Record<string, string> = {};
  let i: number;
  let name: string;
  if (brace === -1 || (space !== -1 && space < brace)) {
    if (space <= 0) return undefined;
    name = line.slice(0, space);
    i = space;
  } else {
    name = line.slice(0, brace);
    i = brace + 1;
    while (line[i] !== '}') {
      const eq = line.indexOf('="', i);
      const close = eq === -1 ? -1 : line.indexOf('"', eq + 2);
      if (close === -1) return undefined;
      const labelName = line.slice(i, eq);
      if (labelName === '' || /[ ,{}=]/.test(labelName)) return undefined;
      labels[labelName] = line.slice(eq + 2, close);
      i = close + 1;
      if (line[i] === ',') i += 1;
      else if (line[i] !== '}') return undefined;
    }
    i += 1;
  }
  if (line[i] !== ' ' || line[i + 1] === ' ' || i + 1 >= line.length) return undefined;
  const end = line.indexOf(' ', i + 1);
  return { name, labels, value: line.slice(i + 1, end === -1 ? undefined : end) };
}

/** parseSampleLine's states (parse-prometheus-text-format 1.1.1): those before LabelName are outside `{...}`. */
enum At {
  Name,
  StartOfLabelName,
  EndOfName,
  Value,
  EndOfLabels,
  Timestamp,
  LabelName,
  LabelValueQuote,
  LabelValueEquals,
  LabelValue,
  LabelValueSlash,
  NextLabel,
}

interface SampleParts {
  name: string;
  labelName: string;
  labelValue: string;
  value: string;
  labels: Record<string, string>;
}

/**
 * One sample line exactly as parse-prometheus-text-format 1.1.1's parseSampleLine reads it (its
 * state machine, ported), so the direct reading gives the reference's samples for any kept line:
 * undefined where it throws InvalidLineError; the timestamp is read past and ignored.
 */
function parseSampleLine(
  line: string,
): { name: string; labels: Record<string, string>; value: string } | undefined {
  const parts: SampleParts = { name: '', labelName: '', labelValue: '', value: '', labels: {} };
  let state: At | undefined = At.Name;
  for (const c of line) {
    state = state < At.LabelName ? outsideLabels(state, c, parts) : insideLabels(state, c, parts);
    if (state === undefined) return undefined;
  }
  return { name: parts.name, labels: parts.labels, value: parts.value };
}

function isBlank(c: string): boolean {
  return c === ' ' || c === '\t';
}

/** parseSampleLine's steps in the name, the value and the timestamp. */
function outsideLabels(state: At, c: string, p: SampleParts): At | undefined {
  switch (state) {
    case At.Name:
      if (c === '{') return At.StartOfLabelName;
      if (isBlank(c)) return At.EndOfName;
      p.name += c;
      return state;
    case At.EndOfName:
      if (isBlank(c)) return state;
      if (c === '{') return At.StartOfLabelName;
      p.value += c;
      return At.Value;
    case At.StartOfLabelName:
      if (isBlank(c)) return state;
      if (c === '}') return At.EndOfLabels;
      p.labelName += c;
      return At.LabelName;
    case At.EndOfLabels:
      if (isBlank(c)) return state;
      p.value += c;
      return At.Value;
    case At.Value:
      if (isBlank(c)) return At.Timestamp;
      p.value += c;
      return state;
    default:
      return state;
  }
}

/** parseSampleLine's steps inside `{...}`: undefined where it throws. */
function insideLabels(state: At, c: string, p: SampleParts): At | undefined {
  switch (state) {
    case At.LabelName:
      if (c === '=') return At.LabelValueQuote;
      if (c === '}') return At.EndOfLabels;
      if (isBlank(c)) return At.LabelValueEquals;
      p.labelName += c;
      return state;
    case At.LabelValueEquals:
      if (c === '=') return At.LabelValueQuote;
      return isBlank(c) ? state : undefined;
    case At.LabelValueQuote:
      if (c === '"') return At.LabelValue;
      return isBlank(c) ? state : undefined;
    case At.LabelValue:
      if (c === '\\') return At.LabelValueSlash;
      if (c !== '"') {
        p.labelValue += c;
        return state;
      }
      p.labels[p.labelName] = p.labelValue;
      p.labelName = '';
      p.labelValue = '';
      return At.NextLabel;
    case At.LabelValueSlash:
      p.labelValue += c === '\\' ? '\\' : c === 'n' ? '\n' : c === '"' ? '"' : `\\${c}`;
      return At.LabelValue;
    case At.NextLabel:
      if (c === ',') return At.LabelName;
      if (c === '}') return At.EndOfLabels;
      return isBlank(c) ? state : undefined;
    default:
      return state;
  }
}

export function parseFloatText(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\+?Inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-Inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^NaN$/i.test(text)) return Number.NaN;
  return FLOAT.test(text) ? Number(text) : undefined;
}

export function clip(text: string): string {
  const oneLine = JSON.stringify(text);
  return oneLine.length > 120 ? `${oneLine.slice(0, 117)}...` : oneLine;
}
