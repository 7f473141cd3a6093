import { open } from 'node:fs/promises';
import { cutText } from '../../untrusted-text.js';
import { type Probe, ProbeError } from '../probe.js';
import type { KubeProbeContext } from './context.js';
import type { AuditLister, AuditListers } from './evidence.js';

/**
 * Who lists, from the API server's audit log where the config names one (issue 39): the log
 * backend's file (`--audit-log-path`), one audit.k8s.io/v1 Event per line as JSON (K8S
 * staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go: `verb`, `stage`, `user.username`,
 * `userAgent`, `objectRef.resource`, `objectRef.namespace`, `requestReceivedTimestamp`). Only its end
 * is read: the last `maxBytes`, at most `maxLines` lines, of which the LISTs (`verb` `list`) received
 * in the last AUDIT_RECENT_MS before the read, each request once (by `auditID`: it logs a line per
 * stage), by resource, scope (every namespace, or one), user and client.
 */
export interface AuditLogSettings {
  path: string;
  /** The last bytes of the file read; default 16 MiB. */
  maxBytes: number;
  /** The last lines of those kept; default 100,000. */
  maxLines: number;
}

/**
 * LISTs this recent are "now": an audit event is written when its request completes (the log
 * backend, `--audit-log-mode=blocking`) or up to `--audit-log-batch-max-wait` later (batch: 30 s by
 * default, `defaultBatchMaxWait` in K8S staging/src/k8s.io/apiserver/plugin/pkg/audit/buffered/
 * buffered.go): a minute holds the probe window's LISTs whichever mode writes them.
 */
export const AUDIT_RECENT_MS = 60_000;

export function createAuditLogProbe(
  timeoutMs: number,
  settings: AuditLogSettings,
): Probe<KubeProbeContext, AuditListers> {
  return {
    kind: 'k8s-audit-log',
    asks: `the audit log ${settings.path}`,
    timeoutMs,
    async collect(ctx) {
      const lines = await readTail(settings);
      return auditListers(lines, ctx.now(), AUDIT_RECENT_MS);
    },
  };
}

/** The file's last whole lines, at most `maxBytes` and `maxLines` of them. */
export async function readTail(settings: AuditLogSettings): Promise<string[]> {
  const file = await open(settings.path, 'r').catch((err: NodeJS.ErrnoException) => {
    throw new ProbeError('error', `cannot read the audit log ${settings.path}: ${err.code ?? err.message}`);
  });
  try {
    const { size } = await file.stat();
    const length = Math.min(size, settings.maxBytes);
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    // The first line is cut when the read starts inside the file; the last is empty or being written.
    if (length < size) lines.shift();
    lines.pop();
    return lines.slice(-settings.maxLines);
  } finally {
    await file.close();
  }
}

interface AuditEvent {
  verb?: unknown;
  auditID?: unknown;
  userAgent?: unknown;
  requestReceivedTimestamp?: unknown;
  user?: { username?: unknown };
  objectRef?: { resource?: unknown; namespace?: unknown };
}

/** The LISTs received in the `recentMs` before `readAtMs`, by resource, scope, user and client. */
export function auditListers(lines: readonly string[], readAtMs: number, recentMs: number): AuditListers {
  const counted = new Map<string, AuditLister>();
  const seen = new Set<string>();
  let eventsRead = 0;
  let newestAtMs: number | undefined;
  for (const line of lines) {
    const event = parse(line);
    if (!event) continue;
    eventsRead++;
    const at =
      typeof event.requestReceivedTimestamp === 'string' ? Date.parse(event.requestReceivedTimestamp) : NaN;
    if (Number.isFinite(at)) newestAtMs = Math.max(newestAtMs ?? at, at);
    if (event.verb !== 'list' || !Number.isFinite(at) || at < readAtMs - recentMs || at > readAtMs) continue;
    // One request logs a line per stage (RequestReceived, ResponseStarted, ResponseComplete): each
    // auditID counts once, whichever of its stages the tail begins with.
    const id = typeof event.auditID === 'string' ? event.auditID : undefined;
    if (id !== undefined) {
      if (seen.has(id)) continue;
      seen.add(id);
    }
    const resource = typeof event.objectRef?.resource === 'string' ? event.objectRef.resource : undefined;
    const username = typeof event.user?.username === 'string' ? event.user.username : undefined;
    if (!resource || !username) continue;
    const scope =
      typeof event.objectRef?.namespace === 'string' && event.objectRef.namespace ? 'namespace' : 'cluster';
    const client =
      typeof event.userAgent === 'string' ? event.userAgent.split(' ')[0] || undefined : undefined;
    const key = [resource, scope, username, client ?? ''].join('\u0000');
    const c = counted.get(key) ?? {
      resource: cutText(resource, 100),
      scope,
      username: cutText(username, 120),
      client: client === undefined ? undefined : cutText(client, 80),
      lists: 0,
    };
    c.lists++;
    counted.set(key, c);
  }
  return {
    eventsRead,
    newestAtMs,
    recentMs,
    readAtMs,
    listers: [...counted.values()].sort((a, b) => b.lists - a.lists),
  };
}

function parse(line: string): AuditEvent | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as AuditEvent) : undefined;
  } catch {
    return undefined;
  }
}
