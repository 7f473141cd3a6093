import type { Agent, request as undiciRequest } from 'undici';
import { StringDecoder } from 'node:string_decoder';
import type { EtcdTlsFiles } from './etcd-clients.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A small GET for etcd's HTTP endpoints (/metrics, /version, /health), with the cluster's TLS files.
 * With `onLine`, the body is handed over a line at a time as it arrives and `body` is empty: a
 * /metrics page is read without ever holding its whole text.
 */
export type HttpGet = (
  url: string,
  signal: AbortSignal,
  opts?: { onLine?: (line: string) => void },
) => Promise<HttpResponse>;

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
  const get: HttpGet = async (url, signal, opts) => {
    const { dispatcher, request } = await connect();
    const res = await request(url, { method: 'GET', dispatcher, signal });
    const body = opts?.onLine ? lineReader(opts.onLine) : bodyReader();
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res.body.destroy();
        throw new Error(`response from ${url} is larger than ${MAX_BODY_BYTES} bytes`);
      }
      body.add(chunk as Buffer);
    }
    return { status: res.statusCode, headers: res.headers, body: body.end() };
  };
  return {
    get,
    ready: async () => {
      await connect();
    },
    close: async () => (client ? (await client).dispatcher.close() : undefined),
  };
}

interface BodyReader {
  add(chunk: Buffer): void;
  /** The whole body, or '' when it went out line by line. */
  end(): string;
}

function bodyReader(): BodyReader {
  const chunks: Buffer[] = [];
  return { add: (chunk) => chunks.push(chunk), end: () => Buffer.concat(chunks).toString('utf8') };
}

/** Hands each complete line (without its newline) to `onLine`, the last one at the end. */
function lineReader(onLine: (line: string) => void): BodyReader {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  return {
    // The chunk's text is scanned as decoded: prepending the previous chunk's partial line would
    // copy the whole chunk again (a flattened cons string) for every chunk of every scrape.
    add(chunk) {
      const text = decoder.write(chunk);
      let nl = text.indexOf('\n');
      if (nl === -1) {
        rest += text;
        return;
      }
      onLine(rest + text.slice(0, nl));
      let start = nl + 1;
      for (nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
        onLine(text.slice(start, nl));
        start = nl + 1;
      }
      rest = text.slice(start);
    },
    end() {
      const last = rest + decoder.end();
      rest = '';
      if (last !== '') onLine(last);
      return '';
    },
  };
}
