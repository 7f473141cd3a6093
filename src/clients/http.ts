import type { Agent, buildConnector, request as undiciRequest } from 'undici';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { TLSSocket } from 'node:tls';
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
  opts?: {
    onLine?: (line: string) => void;
    /** The body's text as it arrives, decoded but cut anywhere (a reader that finds lines itself). */
    onText?: (text: string) => void;
    /** The body's bytes as they arrive (a reader that decodes only what it keeps). */
    onBytes?: (chunk: Buffer) => void;
  },
) => Promise<HttpResponse>;

/** /metrics of a busy member is ~100 KB; anything far larger is not etcd. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The certificate a member's TLS port presented (probes/cert-expiry.ts reads its dates). */
export interface PeerCertificateInfo {
  subject: string;
  issuer: string;
  /** ISO 8601. */
  validFrom: string;
  validTo: string;
}

export interface HttpClient {
  get: HttpGet;
  /**
   * The certificate the server at `url`'s host and port presented on the last TLS connection this
   * client opened to it (a by-product of the GETs: no connection of its own); undefined over http.
   */
  peerCertificate(url: string): PeerCertificateInfo | undefined;
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
  const certificates = new Map<string, PeerCertificateInfo>();
  const connect = () =>
    (client ??= import('undici').then(({ Agent, buildConnector, request }) => {
      // undici speaks TLS for https:// URLs only, and sends no SNI for an IP literal (RFC 6066).
      const base = buildConnector({
        timeout: 2000,
        ...(tls?.rootCertificate ? { ca: tls.rootCertificate } : {}),
        ...(tls?.certChain ? { cert: tls.certChain } : {}),
        ...(tls?.privateKey ? { key: tls.privateKey } : {}),
      });
      // Each new TLS connection leaves the certificate its server presented, for its dates.
      const connector: buildConnector.connector = (opts, callback) =>
        base(opts, (...args) => {
          const [err, socket] = args;
          if (!err && socket && 'getPeerCertificate' in socket)
            remember(certificates, `${opts.hostname}:${opts.port || '443'}`, socket as TLSSocket);
          callback(...args);
        });
      return { dispatcher: new Agent({ connect: connector, keepAliveTimeout: 10_000 }), request };
    }));
  const get: HttpGet = async (url, signal, opts) => {
    const { dispatcher, request } = await connect();
    const res = await request(url, { method: 'GET', dispatcher, signal });
    const body = readerFor(opts);
    await readBody(res.body, url, body);
    return { status: res.statusCode, headers: res.headers, body: body.end() };
  };
  return {
    get,
    peerCertificate: (url) => {
      const u = new URL(url);
      if (u.protocol !== 'https:') return undefined;
      return certificates.get(`${u.hostname}:${u.port || '443'}`);
    },
    ready: async () => {
      await connect();
    },
    close: async () => (client ? (await client).dispatcher.close() : undefined),
  };
}

/**
 * The body's chunks into `into`, by 'data' events: a stream's async iterator costs a promise or two
 * a chunk and its own listeners a request, which showed as most of a small GET's CPU (the clock's
 * /version samples, bench/watch-check.ts).
 */
function readBody(stream: Readable, url: string, into: BodyReader): Promise<void> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const fail = (err: unknown) => {
      cleanup();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        stream.destroy();
        return fail(new Error(`response from ${url} is larger than ${MAX_BODY_BYTES} bytes`));
      }
      try {
        into.add(chunk);
      } catch (err) {
        stream.destroy();
        fail(err);
      }
    };
    const onEnd = () => {
      cleanup();
      resolve();
    };
    // A body destroyed without an error (its request aborted) ends with 'close' alone.
    const onClose = () => fail(stream.errored ?? new Error(`response from ${url} ended early`));
    const cleanup = () => {
      stream.off('data', onData).off('end', onEnd).off('error', fail).off('close', onClose);
    };
    stream.on('data', onData).once('end', onEnd).once('error', fail).once('close', onClose);
  });
}

function readerFor(opts: Parameters<HttpGet>[2]): BodyReader {
  if (opts?.onBytes) {
    const onBytes = opts.onBytes;
    return { add: (chunk) => onBytes(chunk), end: () => '' };
  }
  if (opts?.onText) return textReader(opts.onText);
  return opts?.onLine ? lineReader(opts.onLine) : bodyReader();
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

/** Hands the decoded text on as it arrives (a multi-byte character cut between chunks is joined). */
function textReader(onText: (text: string) => void): BodyReader {
  const decoder = new StringDecoder('utf8');
  return {
    add(chunk) {
      const text = decoder.write(chunk);
      if (text !== '') onText(text);
    },
    end() {
      const last = decoder.end();
      if (last !== '') onText(last);
      return '';
    },
  };
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

/** The leaf certificate's names and dates, kept per host:port (a few dozen bytes a member). */
function remember(into: Map<string, PeerCertificateInfo>, origin: string, socket: TLSSocket): void {
  const cert = socket.getPeerCertificate();
  if (!cert?.valid_to) return;
  const iso = (text: string) => {
    const ms = Date.parse(text);
    return Number.isFinite(ms) ? new Date(ms).toISOString() : text;
  };
  into.set(origin, {
    subject: cert.subject?.CN ? String(cert.subject.CN) : '',
    issuer: cert.issuer?.CN ? String(cert.issuer.CN) : '',
    validFrom: iso(cert.valid_from),
    validTo: iso(cert.valid_to),
  });
}
