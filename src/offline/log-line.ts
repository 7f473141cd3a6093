/**
 * The wrappers people paste etcd and control-plane logs in, taken off one line at a time so the
 * log scanner (probes/kubernetes/scan-logs.ts) sees the application's own line. Detected per line,
 * never by a flag: a file may mix them (a `kubectl logs --prefix --timestamps` of several pods).
 */

export type LogWrapper =
  | 'docker-json'
  | 'cri'
  | 'journald'
  | 'kubectl-prefix'
  | 'name-prefix'
  | 'timestamp-prefix';

export interface UnwrappedLine {
  /** The application's line: an etcd zap entry, a capnslog line, a klog line. */
  text: string;
  /** When the wrapper says the line was written (ISO 8601 UTC), if it says. */
  at?: string;
  /** The pod or member the line is prefixed with (`[pod/etcd-m1/etcd]`, `etcd-1 | `). */
  source?: string;
  /** The container, from `kubectl logs --prefix`. */
  container?: string;
  /** The host journald recorded. */
  host?: string;
  /** The program journald or syslog recorded (`etcd` in `host etcd[9683]: …`). */
  program?: string;
  /** CRI `P` or a Docker entry without its newline: the line goes on in the next entry. */
  partial?: boolean;
  /** The wrappers removed, outermost first. */
  wrappers: LogWrapper[];
}

/** A wrapped line holds at most this many wrappers (`--prefix` around `--timestamps` around CRI). */
const MAX_LAYERS = 4;

/** Takes the wrappers off one raw line (no trailing newline). */
export function unwrapLine(raw: string): UnwrappedLine {
  const line: UnwrappedLine = { text: raw, wrappers: [] };
  for (let i = 0; i < MAX_LAYERS; i++) {
    const wrapper = peel(line);
    if (!wrapper) break;
    line.wrappers.push(wrapper);
  }
  return line;
}

function peel(line: UnwrappedLine): LogWrapper | undefined {
  const text = line.text;
  const first = text.charCodeAt(0);
  if (text.startsWith('{"log":')) return dockerJson(line) ? 'docker-json' : undefined;
  if (first === 0x5b /* [ */) return kubectlPrefix(line) ? 'kubectl-prefix' : undefined;
  if (first >= 0x30 && first <= 0x39) {
    if (cri(line)) return 'cri';
    if (journaldIso(line)) return 'journald';
    if (timestampPrefix(line)) return 'timestamp-prefix';
  }
  if (journaldShort(line)) return 'journald';
  if (namePrefix(line)) return 'name-prefix';
  return undefined;
}

/**
 * Docker's json-file driver: one JSON object per line, `log` holding the line with its newline,
 * `stream` and `time` (RFC 3339, nanoseconds). A line over 16 KiB is split into entries whose
 * `log` has no newline but the last (moby daemon/logger/jsonfilelog).
 */
function dockerJson(line: UnwrappedLine): boolean {
  let entry: unknown;
  try {
    entry = JSON.parse(line.text);
  } catch {
    return false;
  }
  if (typeof entry !== 'object' || entry === null) return false;
  const { log, time } = entry as { log?: unknown; time?: unknown };
  if (typeof log !== 'string') return false;
  line.partial = !log.endsWith('\n');
  line.text = log.replace(/\r?\n$/, '');
  setTime(line, typeof time === 'string' ? time : undefined);
  return true;
}

/**
 * The CRI log format kubelet, CRI-O and containerd write under /var/log/pods:
 * `<RFC 3339 nano> <stdout|stderr> <P|F> <content>`, `P` for a partial line (kubernetes
 * cri-api logs design, "CRI container log format").
 */
const CRI = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) (?:stdout|stderr) ([PF]) ?(.*)$/s;

function cri(line: UnwrappedLine): boolean {
  const m = CRI.exec(line.text);
  if (!m) return false;
  setTime(line, m[1]);
  line.partial = m[2] === 'P';
  line.text = m[3] ?? '';
  return true;
}

/** `kubectl logs --timestamps` (RFC 3339 nano), and any other ISO time before a line. */
// Not zap's console encoder, whose own time is followed by the level (`<time>\tinfo\t…`, find-line.ts).
const TIMESTAMP_PREFIX =
  /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)) (?![ \t]*(?:debug|info|warn|error|dpanic|panic|fatal)[ \t])(.*)$/s;

function timestampPrefix(line: UnwrappedLine): boolean {
  const m = TIMESTAMP_PREFIX.exec(line.text);
  if (!m) return false;
  setTime(line, m[1]);
  line.text = m[2] ?? '';
  return true;
}

/** `kubectl logs --prefix`: `[pod/<pod>/<container>] <line>`. */
const KUBECTL_PREFIX = /^\[(?:pod\/)?([a-z0-9][a-z0-9.-]*)\/([a-z0-9][a-z0-9-]*)\] (.*)$/s;

function kubectlPrefix(line: UnwrappedLine): boolean {
  const m = KUBECTL_PREFIX.exec(line.text);
  if (!m) return false;
  line.source = m[1] ?? '';
  line.container = m[2] ?? '';
  line.text = m[3] ?? '';
  return true;
}

/**
 * journalctl's default `short` format, `Aug 17 12:26:12 host etcd[9683]: <line>` (no year), and
 * `-o short-iso`, `2024-01-31T16:54:41+0800 host etcd[9683]: <line>` (systemd journalctl(1)).
 */
const JOURNALD_SHORT =
  /^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? ([A-Za-z0-9][\w.-]*) ([A-Za-z][\w.@-]*)(?:\[\d+\])?: (.*)$/s;
const JOURNALD_ISO =
  /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)) ([A-Za-z0-9][\w.-]*) ([A-Za-z][\w.@-]*)(?:\[\d+\])?: (.*)$/s;

function journaldShort(line: UnwrappedLine): boolean {
  const m = JOURNALD_SHORT.exec(line.text);
  if (!m) return false;
  line.host = m[1] ?? '';
  line.program = m[2] ?? '';
  line.text = m[3] ?? '';
  return true;
}

function journaldIso(line: UnwrappedLine): boolean {
  const m = JOURNALD_ISO.exec(line.text);
  // `2024-...Z stderr F ...` is CRI, tried first; a host named like a stream is not journald.
  if (!m || m[2] === 'stdout' || m[2] === 'stderr') return false;
  setTime(line, m[1]);
  line.host = m[2] ?? '';
  line.program = m[3] ?? '';
  line.text = m[4] ?? '';
  return true;
}

/**
 * Several members interleaved with a name before a bar: docker compose (`etcd-1  | <line>`) and
 * goreman, which etcd's own Procfile uses (`12:26:12 etcd1 | <line>`).
 */
// Two characters at least: `W | ` is capnslog's level and bar, its time on the line before (a web console's copy).
const NAME_PREFIX = /^(?:\d\d:\d\d:\d\d )?([A-Za-z][\w.-]{1,62}?) *\| (.*)$/s;

function namePrefix(line: UnwrappedLine): boolean {
  const m = NAME_PREFIX.exec(line.text);
  if (!m) return false;
  line.source = m[1] ?? '';
  line.text = m[2] ?? '';
  return true;
}

/** Keeps the outermost time a wrapper gave; `+0800` becomes `+08:00` so Date.parse reads it. */
function setTime(line: UnwrappedLine, text: string | undefined): void {
  if (line.at || !text) return;
  const ms = Date.parse(text.replace(',', '.').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  if (Number.isFinite(ms)) line.at = new Date(ms).toISOString();
}

/** The line carries its own time (zap `ts`, capnslog, raft's logger): the scanner reads it there. */
export function hasOwnTime(text: string): boolean {
  return /^(?:\{"|\d{4}-\d\d-\d\d[ T]\d\d:|raft\d{4}\/)/.test(text);
}

const CAPNSLOG = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [DINWEC] \| /;
const RAFT_STD = /^raft\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /;
const KLOG = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [\w./-]+:\d+\] /;

/** What wrote an application line, as far as its shape says. */
export type LineKind = 'etcd' | 'klog' | 'other';

/**
 * etcd 3.0–3.3 under systemd logs through capnslog's journald formatter: the journal's MESSAGE has
 * neither a time nor a level (`host etcd[9683]: sync duration of 1.3s, expected less than 1s`), so
 * the program name journald recorded is what says the line is etcd's.
 */
export function isEtcdProgram(program: string | undefined): boolean {
  return program !== undefined && /^etcd(?:\d|-member|-server)?$/.test(program);
}

export function lineKind(text: string): LineKind {
  if (text.startsWith('{"'))
    return /"(?:caller|logger)":"/.test(text) && text.includes('"msg":') ? 'etcd' : 'other';
  if (CAPNSLOG.test(text) || RAFT_STD.test(text)) return 'etcd';
  return KLOG.test(text) ? 'klog' : 'other';
}
