/**
 * Finds etcd's own line inside whatever a collector put before it (issue 37 item 2): instead of a
 * fixed list of wrappers, the shapes etcd's loggers write are looked for anywhere in a line's head,
 * and what came before them is the collector's prefix (a container service's `<service>.<n>.<id>@
 * <host>    | `, a Procfile runner's `etcd.1  | `, svlogd's TAI time, `minikube logs`' `* `, a
 * portal table's columns, talosctl's node, journalctl's `"MESSAGE" : "`). The shapes, from etcd's
 * source (etcd-io/etcd at the release tags) and its dependencies:
 *
 * - capnslog (etcd 2.2–3.4, pkg/logutil and coreos/pkg capnslog's PackageLogger):
 *   `2019-08-09 10:57:50.500232 W | etcdserver: …`, and with the glog-style caller tag some builds
 *   print, `2019-08-09 10:57:50.500232 [pkg_logger.go:114] W | etcdserver: …`;
 * - zap JSON (3.4–3.7 `--logger=zap`): `{"level":"warn","ts":…,"caller":…,"msg":…}`;
 * - zap console (3.5+ `--log-format=console`): `<ISO time>\t<level>\t[<logger>\t]<file.go:N>\t<msg>\t{fields}`;
 * - Go's standard log (etcd 0.4–2.1, and 3.x's gRPC logger): `2015/03/07 05:25:11 etcdserver: …`;
 * - raft's default logger (raft/logger.go, `log.New(os.Stderr, "raft", …)`): `raft2020/08/05 16:06:25 INFO: …`;
 * - klog (the Kubernetes components beside etcd): `I0805 16:06:25.703627 1 file.go:42] …`.
 *
 * Every pattern has bounded repetition and is tried on a bounded head of the line: a 64 KiB line
 * costs a few passes over at most SEARCH_CHARS characters.
 */

export type LineShape = 'zap-json' | 'zap-console' | 'capnslog' | 'go-log' | 'raft' | 'klog';

export interface FoundLine {
  shape: LineShape;
  /**
   * The line from etcd's shape on, in the form the log scanner reads: capnslog without its caller
   * tag (and `\|` a markdown table escaped back to `|`), zap console as zap JSON, Go's standard
   * log without its time (given in `at`).
   */
  text: string;
  /** What came before the shape (the collector's prefix), trimmed. */
  prefix: string;
  /** The writer the prefix names: a container service's `<service>.<n>`, a Procfile's or compose's process, talosctl's node. */
  source?: string;
  /** The line's time where `text` no longer carries it (Go's standard log), ISO 8601. */
  at?: string;
  /**
   * The shape follows text with no space between (`…expected less than 1s2018-12-08 06:59:03…`):
   * the line before it was joined to it (mail re-wrapped the log), not prefixed by a collector,
   * which always ends its prefix with a space, a tab, a bar or a quote.
   */
  glued: boolean;
}

/** A collector's prefix is short: the shape starts within this many characters. */
export const SEARCH_CHARS = 320;

// capnslog's PackageLogger through its default formatter (coreos/pkg capnslog/formatters.go
// StringFormatter: `<time> <level char> | <pkg>: <msg>`), with the optional `[file.go:N] ` caller.
const CAPNSLOG_HEAD =
  /(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{1,9}) (?:\[[\w.-]{1,64}:\d{1,6}\] )?\\?([DINWEC]) \\?\| /;
// zap's console encoder (etcd client/pkg/logutil zap.go DefaultZapLoggerConfig: ISO8601 time,
// lowercase level, short caller), with the logger's name where it has one (`raft`).
const ZAP_CONSOLE_HEAD =
  /(?<![\w.:-])(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d))[ \t]{1,8}(debug|info|warn|error|dpanic|panic|fatal)[ \t]{1,8}(?:([A-Za-z][\w.-]{0,39})[ \t]{1,8})?([\w.@/-]{1,160}\.go:\d{1,6})[ \t]{1,8}/i;
// Go's log.LstdFlags (`2015/03/07 05:25:11 `, with Lmicroseconds `.000000`), not raft's (below).
const GO_LOG_HEAD = /(?<![\w/])(\d{4})\/(\d\d)\/(\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))? /;
const RAFT_HEAD = /(?<![\w])raft\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})? /;
const KLOG_HEAD = /(?<![\w])[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} {1,8}\d{1,10} [\w./-]{1,160}:\d{1,6}\] /;
// A zap JSON entry, and one whose first characters a narrow terminal cut off (`aller":"…","msg":…`),
// or a copy that quoted its fields from a key on (`"msg":"…","error":"…"`, without the braces).
const ZAP_JSON_HEAD = /\{"(?:level|ts|msg|caller|logger)":/;
const ZAP_CUT_HEAD = /^"?[\w-]{1,40}":(?:"|\d|-|\[|\{|true|false|null)/;

interface Hit {
  index: number;
  found: FoundLine;
}

/**
 * etcd's line inside `line`, or undefined when no shape of etcd's (or klog's) starts within the
 * first SEARCH_CHARS characters. The earliest shape wins: the collector's prefix is before it.
 */
export function findEtcdLine(line: string): FoundLine | undefined {
  const head = line.slice(0, SEARCH_CHARS + 160);
  const hits = [
    capnslog(line, head),
    zapJson(line),
    zapConsole(line, head),
    raft(line, head),
    goLog(line, head),
    klog(line, head),
  ];
  let best: Hit | undefined;
  for (const hit of hits)
    if (hit && hit.index <= SEARCH_CHARS && (!best || hit.index < best.index)) best = hit;
  if (!best) return undefined;
  const before = best.index > 0 ? line.charAt(best.index - 1) : ' ';
  best.found.glued = !/[\s"'`*>|:]/.test(before);
  const source = sourceOf(best.found.prefix);
  if (source) best.found.source = source;
  return best.found;
}

function prefixOf(line: string, index: number): string {
  return line.slice(0, index).trim();
}

function capnslog(line: string, head: string): Hit | undefined {
  const m = CAPNSLOG_HEAD.exec(head);
  if (!m) return undefined;
  const text = `${m[1]} ${m[2]} ${m[3]} | ${line.slice(m.index + m[0].length)}`;
  return {
    index: m.index,
    found: { shape: 'capnslog', text, prefix: prefixOf(line, m.index), glued: false },
  };
}

function zapJson(line: string): Hit | undefined {
  if (!line.endsWith('}') && !line.includes('"msg":"')) return undefined;
  const start = line.search(ZAP_JSON_HEAD);
  if (start >= 0 && start <= SEARCH_CHARS && isJsonObject(line.slice(start)))
    return {
      index: start,
      found: { shape: 'zap-json', text: line.slice(start), prefix: prefixOf(line, start), glued: false },
    };
  // Cut on the left: the keys after the cut are whole; cut on the right too, the text is still etcd's.
  if (ZAP_CUT_HEAD.test(line) && (line.includes('","msg":"') || line.startsWith('"msg":"'))) {
    const repaired = line.startsWith('"') ? `{${line}` : `{"${line}`;
    return {
      index: 0,
      found: { shape: 'zap-json', text: isJsonObject(repaired) ? repaired : line, prefix: '', glued: false },
    };
  }
  return undefined;
}

function isJsonObject(text: string): boolean {
  if (!text.endsWith('}')) return false;
  try {
    const v: unknown = JSON.parse(text);
    return (
      typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      typeof (v as { msg?: unknown }).msg === 'string'
    );
  } catch {
    return false;
  }
}

/** zap console as the zap JSON entry it encodes, so every zap rule reads it by its fields. */
function zapConsole(line: string, head: string): Hit | undefined {
  const m = ZAP_CONSOLE_HEAD.exec(head);
  if (!m) return undefined;
  const rest = line.slice(m.index + m[0].length);
  const { msg, fields } = splitConsoleFields(rest);
  const ts = (m[1] ?? '').replace(/([+-]\d\d)(\d\d)$/, '$1:$2');
  const entry: Record<string, unknown> = { level: (m[2] ?? '').toLowerCase(), ts };
  if (m[3]) entry.logger = m[3];
  entry.caller = m[4];
  entry.msg = msg;
  for (const [k, v] of Object.entries(fields)) if (!(k in entry)) entry[k] = v;
  return {
    index: m.index,
    found: {
      shape: 'zap-console',
      text: JSON.stringify(entry),
      prefix: prefixOf(line, m.index),
      glued: false,
    },
  };
}

/** A console entry's message and its JSON fields (`<msg>\t{"k": v}`): the first `{"` that starts a whole object. */
function splitConsoleFields(rest: string): { msg: string; fields: Record<string, unknown> } {
  if (rest.endsWith('}')) {
    let from = 0;
    for (let tries = 0; tries < 4; tries++) {
      const at = rest.indexOf('{"', from);
      if (at < 0) break;
      try {
        const v: unknown = JSON.parse(rest.slice(at));
        if (typeof v === 'object' && v !== null && !Array.isArray(v))
          return { msg: rest.slice(0, at).trim(), fields: v as Record<string, unknown> };
      } catch {
        // not the fields' start; the next `{"` may be
      }
      from = at + 2;
    }
  }
  return { msg: rest.trim(), fields: {} };
}

function raft(line: string, head: string): Hit | undefined {
  const m = RAFT_HEAD.exec(head);
  if (!m) return undefined;
  return {
    index: m.index,
    found: { shape: 'raft', text: line.slice(m.index), prefix: prefixOf(line, m.index), glued: false },
  };
}

/** Go's standard log: its time goes to `at` (the scanner reads ISO times), the text after it is etcd's. */
function goLog(line: string, head: string): Hit | undefined {
  const m = GO_LOG_HEAD.exec(head);
  if (!m) return undefined;
  const at = `${m[1]}-${m[2]}-${m[3]}T${m[4]}.${(m[5] ?? '0').padEnd(6, '0')}Z`;
  const ms = Date.parse(at);
  const found: FoundLine = {
    shape: 'go-log',
    text: line.slice(m.index + m[0].length),
    prefix: prefixOf(line, m.index),
    glued: false,
  };
  if (Number.isFinite(ms)) found.at = new Date(ms).toISOString();
  return { index: m.index, found };
}

function klog(line: string, head: string): Hit | undefined {
  const m = KLOG_HEAD.exec(head);
  if (!m) return undefined;
  return {
    index: m.index,
    found: { shape: 'klog', text: line.slice(m.index), prefix: prefixOf(line, m.index), glued: false },
  };
}

// docker service logs (swarm): `<service>.<slot>.<task id>@<node>    | `; the slot is the replica
// (a restarted task gets a new id, the same slot). docker compose `etcd-1  | `, foreman's
// Procfile `etcd.1  | `, goreman `13:51:19 etcd1 | `. talosctl logs: `<node IP>: `.
const CONTAINER_SERVICE =
  /^([\w-]{1,64}(?:\.[\w-]{1,64}){0,3}?\.\d{1,4})\.[a-z0-9]{6,32}@[\w.-]{1,64}\s{0,8}\\?\|$/;
const PROCESS_NAME = /^(?:\d\d:\d\d:\d\d )?([A-Za-z][\w.-]{0,62})\s{0,8}\\?\|$/;
const NODE_IP = /^((?:\d{1,3}\.){3}\d{1,3}):$/;

/** The writer a collector's prefix names, if it names one. */
export function sourceOf(prefix: string): string | undefined {
  if (prefix.length === 0 || prefix.length > 200) return undefined;
  return (CONTAINER_SERVICE.exec(prefix) ?? PROCESS_NAME.exec(prefix) ?? NODE_IP.exec(prefix))?.[1];
}

// syslog and journald in any of the shapes people paste (`Mmm dd hh:mm:ss host prog[pid]: `, a
// localised month `1月 18 00:35:31 host prog[pid]: `, /var/log/messages without a pid, a line copied
// without its date and host `prog[pid]: `, behind a markdown quote `> `): the program's name is
// what says a line without any shape of its own (capnslog's journald formatter) is etcd's.
const SYSLOG_PROGRAM =
  /^(?:> ?)?(?:\S{1,12} {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d{1,9})? )?(?:[A-Za-z0-9][\w.-]{0,63} )?([A-Za-z][\w.@-]{0,40})(?:\[\d{1,10}\])?: /;

export interface ProgramLine {
  program: string;
  text: string;
}

/** The program a syslog-shaped line names and its message, for a line no other shape matched. */
export function findProgram(line: string): ProgramLine | undefined {
  const m = SYSLOG_PROGRAM.exec(line);
  if (!m?.[1]) return undefined;
  return { program: m[1], text: line.slice(m[0].length) };
}

/**
 * etcd under systemd (its own unit, Container Linux's etcd-wrapper, a unit's wrapper script
 * `etcd.sh`, `etcd2`, `etcd-member`): the journal's program name is etcd's. Not etcdctl.
 */
export function isEtcdProgram(program: string | undefined): boolean {
  return program !== undefined && /^etcd(?!ctl$|utl$)(?:\d{1,2}|[-_.][\w.-]{1,24})?$/.test(program);
}

// rsyslog's reduction of repeats (`$RepeatedMsgReduction on`): `message repeated 5 times: [ <msg>]`.
const REPEATED = /^message repeated (\d{1,9}) times: \[ ?(.*)\]$/s;

/** rsyslog's `message repeated N times: [ <line>]` as the line and N, or undefined. */
export function repeatedMessage(text: string): { text: string; times: number } | undefined {
  const m = REPEATED.exec(text);
  if (!m) return undefined;
  return { text: m[2] ?? '', times: Number(m[1]) };
}
