import type { Agent, request as undiciRequest } from 'undici';
import type { EtcdTlsFiles } from './etcd-clients.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A small GET for etcd's HTTP endpoints (/metrics, /version, /health), with the cluster's TLS files. */
export type HttpGet = (url: string, signal: AbortSignal) => Promise<HttpResponse>;

/** /metrics of a busy member is ~100 KB; anything far larger is not etcd. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface HttpClient {
  get: HttpGet;
  /**
   * Loads undici and creates the agent. Await it before timing a first GET (the clock probe's
   * round trips): otherwise that GET also times the module load.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createHttpGet(tls: EtcdTlsFiles | undefined): HttpClient {
  // undici (~110 modules) loads at the first GET: `health` makes none, and starts without it.
  let client: Promise<{ dispatcher: Agent; request: typeof undiciRequest }> | undefined;
  const connect = () =>
    (client ??= import('undici').then(({ Agent, request }) => ({
      dispatcher: new Agent({
        // undici speaks TLS for https:// URLs only, and sends no SNI for an IP literal (RFC 6066).
        connect: {
          timeout: 2000,
          ...(tls?.rootCertificate ? { ca: tls.rootCertificate } : {}),
          ...(tls?.certChain ? { cert: tls.certChain } : {}),
          ...(tls?.privateKey ? { key: tls.privateKey } : {}),
        },
        keepAliveTimeout: 10_000,
      }),
      request,
    })));
  const get: HttpGet = async (url, signal) => {
    const { dispatcher, request } = await connect();
    const res = await request(url, { method: 'GET', dispatcher, signal });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res.body.destroy();
        throw new Error(`response from ${url} is larger than ${MAX_BODY_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') };
  };
  return {
    get,
    ready: async () => {
      await connect();
    },
    close: async () => (client ? (await client).dispatcher.close() : undefined),
  };
}
