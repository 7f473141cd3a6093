import type { HttpGet } from '../../clients/http.js';

const QUOTA = /^etcd_server_quota_backend_bytes(?:\{[^}]*\})?\s+(\S+)/;

/**
 * The member's --quota-backend-bytes, as its /metrics says (etcd_server_quota_backend_bytes, etcd
 * 3.4 and later); undefined when /metrics does not answer in time or has no such line.
 */
export async function readMemberQuota(
  httpGet: HttpGet,
  metricsUrl: string,
  timeoutMs: number,
): Promise<number | undefined> {
  let quota: number | undefined;
  try {
    const res = await httpGet(metricsUrl, AbortSignal.timeout(timeoutMs), {
      onLine: (line) => {
        const match = QUOTA.exec(line);
        if (match?.[1]) quota = Number(match[1]);
      },
    });
    return res.status === 200 && quota !== undefined && Number.isFinite(quota) ? quota : undefined;
  } catch {
    return undefined;
  }
}

/** A metrics URL as configured, or the endpoint's own /metrics (a URL with a path is taken as given). */
export function metricsUrlOf(endpoint: string, configured: string | undefined): string {
  const url = configured ?? endpoint;
  return new URL(url).pathname.replace(/\/+$/, '') === '' ? `${url.replace(/\/+$/, '')}/metrics` : url;
}
