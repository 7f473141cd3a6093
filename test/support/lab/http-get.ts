import { request } from 'node:http';
import { request as requestTls } from 'node:https';
import type { TlsMaterial } from '../../../src/clients/grpc-tls.js';

export interface LabHttpResponse {
  status: number;
  body: string;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * GET with a hard deadline; undefined when nothing answered in time, or the connection failed.
 * A SIGSTOPped member still accepts TCP (the kernel does that) but never answers, so only a
 * deadline tells it apart. No keep-alive: a lab kills servers under open connections.
 */
export function httpGet(
  url: string,
  timeoutMs: number,
  tls?: TlsMaterial,
): Promise<LabHttpResponse | undefined> {
  const secure = url.startsWith('https:');
  const send = secure ? requestTls : request;
  // Node's https sends no SNI for an IP literal; the certificate is still checked against it.
  const options = {
    agent: false as const,
    signal: AbortSignal.timeout(timeoutMs),
    ...(secure && tls ? { ca: tls.rootCertificate, cert: tls.certChain, key: tls.privateKey } : {}),
  };
  return new Promise((resolve) => {
    const req = send(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          req.destroy(new Error(`response from ${url} exceeds ${MAX_BODY_BYTES} bytes`));
        } else {
          chunks.push(chunk);
        }
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** etcd's /health answers {"health":"true"} (a string, not a boolean) when the member has a leader and no alarm. */
export async function isHealthy(clientUrl: string, timeoutMs: number, tls?: TlsMaterial): Promise<boolean> {
  const res = await httpGet(`${clientUrl}/health`, timeoutMs, tls);
  if (res?.status !== 200) return false;
  try {
    const body: unknown = JSON.parse(res.body);
    return typeof body === 'object' && body !== null && 'health' in body && body.health === 'true';
  } catch {
    return false;
  }
}

/** /version answers without quorum, so it shows the HTTP server is up even when /health cannot be true. */
export async function answersVersion(
  clientUrl: string,
  timeoutMs: number,
  tls?: TlsMaterial,
): Promise<boolean> {
  const res = await httpGet(`${clientUrl}/version`, timeoutMs, tls);
  return res?.status === 200;
}
