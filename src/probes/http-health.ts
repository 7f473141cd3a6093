import type { HttpGet } from '../clients/http.js';

/*
 * etcd's own HTTP health, asked when a member's linearizable read failed but its Status answered:
 * which of its checks fails says whether the member cannot read its own data or the cluster has no
 * consensus. etcd 3.6 and 3.7 serve /readyz and /livez beside /health on the client URL
 * (server/etcdserver/api/etcdhttp/health.go at v3.6.0 and v3.7.0, HandleHealth), and so do the
 * patches they were backported to, 3.5.11 and 3.4.29 (installReadyzEndpoints first at those tags;
 * the 3.5 lab's 3.5.30 answers them, the 3.4 lab's 3.4.23 does not):
 * - /readyz runs data_corruption (a CORRUPT alarm), serializable_read, linearizable_read and
 *   non_learner; /livez runs serializable_read. Each check answers `[+]name ok` or
 *   `[-]name failed: reason` (runHealthChecks). 200 when every check passed (the lines only with
 *   `?verbose`, then `ok`), 503 with the lines when one failed (newHealthHandler).
 * - /health (3.4 and later) answers JSON `{"health":"true"|"false","reason":"..."}` (Health).
 * Older patches answer 404 for /readyz: then /health, as before.
 * The linearizable read already failed over gRPC, and /readyz's own linearizable_read would wait as
 * long as etcd's request timeout (5 s plus two election timeouts) for the same answer: it is left out
 * with `exclude=linearizable_read` (installRootHTTPEndpoint reads `exclude`), so the other checks
 * answer at once.
 */

export interface HttpHealthCheck {
  name: string;
  ok: boolean;
  /** Why it failed, as etcd wrote it. */
  reason?: string;
}

export interface HttpHealthData {
  /** The path that answered: `/readyz` (3.6, 3.5.11+, 3.4.29+) or `/health` (older patches). */
  path: '/readyz' | '/health';
  ok: boolean;
  /** /readyz's checks, each as etcd named it; /health has one, `health`. */
  checks: HttpHealthCheck[];
  /** /livez: whether the member serves local reads at all; absent where /readyz is not served. */
  live?: { ok: boolean; checks: HttpHealthCheck[] };
}

const CHECK_LINE = /^\[([+-])\]([A-Za-z0-9_.-]+) (?:ok|failed: ?(.*))$/;

/** The `[+]name ok` / `[-]name failed: reason` lines of /readyz or /livez. */
export function parseCheckLines(body: string): HttpHealthCheck[] {
  return body.split('\n').flatMap((line) => {
    const m = CHECK_LINE.exec(line.trim());
    if (!m?.[2]) return [];
    return [m[1] === '+' ? { name: m[2], ok: true } : { name: m[2], ok: false, reason: m[3] ?? '' }];
  });
}

/** /health's JSON: `{"health":"false","reason":"RAFT NO LEADER"}` (3.5; 3.4 has no reason). */
export function parseHealthJson(body: string): HttpHealthCheck {
  try {
    const json = JSON.parse(body) as { health?: unknown; reason?: unknown };
    const ok = json.health === true || json.health === 'true';
    const reason = typeof json.reason === 'string' && json.reason ? json.reason : undefined;
    return ok ? { name: 'health', ok } : { name: 'health', ok, reason: reason ?? 'health false' };
  } catch {
    return { name: 'health', ok: false, reason: `not JSON: ${body.slice(0, 80)}` };
  }
}

/** GET /readyz?verbose (all but linearizable_read) and /livez?verbose where the member serves them, else /health. */
export const READYZ_QUERY = '?verbose&exclude=linearizable_read';

export async function readHttpHealth(
  httpGet: HttpGet,
  endpoint: string,
  signal: AbortSignal,
): Promise<HttpHealthData> {
  const base = endpoint.replace(/\/+$/, '');
  const readyz = await httpGet(`${base}/readyz${READYZ_QUERY}`, signal);
  if (readyz.status === 404) {
    const health = await httpGet(`${base}/health`, signal);
    const check = parseHealthJson(health.body);
    return { path: '/health', ok: health.status === 200 && check.ok, checks: [check] };
  }
  const livez = await httpGet(`${base}/livez?verbose`, signal);
  const checks = parseCheckLines(readyz.body);
  return {
    path: '/readyz',
    ok: readyz.status === 200,
    checks,
    live: { ok: livez.status === 200, checks: parseCheckLines(livez.body) },
  };
}
