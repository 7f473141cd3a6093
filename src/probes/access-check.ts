import { X509Certificate } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { checkServerIdentity, type PeerCertificate, connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { EtcdTlsFiles } from '../clients/etcd-clients.js';
import { type AccessProblem, accessProblem } from './access-problem.js';

export type { AccessProblem, AccessProblemKind } from './access-problem.js';

export interface AccessCheckOptions {
  endpoint: string;
  tls: EtcdTlsFiles | undefined;
  timeoutMs: number;
  /** Where the endpoint is configured, for the fix: `clusters[0].etcd.endpoints[1]`. */
  where: AccessWhere;
  lookup?: (host: string) => Promise<unknown>;
}

export interface AccessWhere {
  /** `clusters[0].etcd`. */
  etcdPath: string;
  /** The endpoint's index in `etcd.endpoints`; undefined for a member found in the member list. */
  endpointIndex: number | undefined;
}

/** What one raw exchange (a GET /version) came back with. */
type Exchange =
  | { kind: 'response'; head: string; body: string }
  | { kind: 'closed'; bytes: Buffer }
  | { kind: 'error'; error: NodeJS.ErrnoException }
  | { kind: 'timeout' };

/**
 * Why etcd-doctor cannot talk to a member, found by doing by hand what the gRPC client does: a
 * DNS lookup, a TCP connect, the TLS handshake with our own files (checked step by step, so an
 * unknown CA, an expired certificate and a wrong name are told apart), then `GET /version`. A
 * member that answers it fine gives undefined: the failure was elsewhere.
 *
 * etcd closes a plain-HTTP connection to its TLS client port without a word (its TLS listener
 * handshakes before net/http sees the bytes), and its plain port answers a TLS hello with an
 * HTTP 400; so a scheme mix-up is proven by trying the other scheme on a fresh connection.
 */
export async function checkAccess(opts: AccessCheckOptions): Promise<AccessProblem | undefined> {
  const url = new URL(opts.endpoint);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const deadline = Date.now() + opts.timeoutMs;
  const problem = (kind: Parameters<typeof accessProblem>[0], detail = '') =>
    accessProblem(kind, { ...opts.where, endpoint: opts.endpoint, host, port, detail, tls: opts.tls });
  if (!isIP(host)) {
    try {
      await (opts.lookup ?? dnsLookup)(host);
    } catch (err) {
      return problem('dns', (err as NodeJS.ErrnoException).code ?? String(err));
    }
  }
  const socket = await openTcp(host, port, deadline);
  if (!('socket' in socket)) return problem(socket.kind, socket.detail);
  return url.protocol === 'https:'
    ? checkTls(socket.socket, { host, port, deadline, opts, problem })
    : checkPlain(socket.socket, { host, port, deadline, opts, problem });
}

interface Step {
  host: string;
  port: number;
  deadline: number;
  opts: AccessCheckOptions;
  problem: (kind: Parameters<typeof accessProblem>[0], detail?: string) => AccessProblem;
}

type TcpResult = { socket: Socket } | { kind: 'refused' | 'connect-timeout' | 'no-route'; detail: string };

function openTcp(host: string, port: number, deadline: number): Promise<TcpResult> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const waitMs = remaining(deadline);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ kind: 'connect-timeout', detail: `no SYN-ACK in ${waitMs} ms` });
    }, waitMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve({ socket });
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const kind = err.code === 'ECONNREFUSED' ? 'refused' : 'no-route';
      resolve({ kind, detail: err.code ?? err.message });
    });
  });
}

async function checkTls(socket: Socket, step: Step): Promise<AccessProblem | undefined> {
  const handshake = await handshakeTls(socket, step);
  if ('error' in handshake) return classifyTlsError(handshake.error, step);
  const tlsSocket = handshake.socket;
  const cert = tlsSocket.getPeerCertificate();
  if (!tlsSocket.authorized) {
    tlsSocket.destroy();
    return classifyAuthorization(tlsSocket.authorizationError, cert, step);
  }
  const identity = checkServerIdentity(step.host, cert);
  if (identity) {
    tlsSocket.destroy();
    return step.problem('name-mismatch', cert.subjectaltname ?? 'no subjectAltName');
  }
  // TLS 1.3: the server judges our certificate after our side of the handshake is done, so a
  // refusal arrives as an alert on the first read.
  const answer = await exchange(tlsSocket, step);
  if (answer.kind === 'error') return classifyTlsError(answer.error, step);
  return judgeAnswer(answer, step);
}

function handshakeTls(
  socket: Socket,
  step: Step,
): Promise<{ socket: TLSSocket } | { error: NodeJS.ErrnoException }> {
  const tls = step.opts.tls;
  return new Promise((resolve) => {
    const tlsSocket = tlsConnect({
      socket,
      host: step.host,
      // No SNI for an IP literal (RFC 6066 §3); Node checks the certificate against `host`.
      ...(isIP(step.host) ? {} : { servername: step.host }),
      ...(tls?.rootCertificate ? { ca: tls.rootCertificate } : {}),
      ...(tls?.certChain ? { cert: tls.certChain } : {}),
      ...(tls?.privateKey ? { key: tls.privateKey } : {}),
      // Verified below, step by step, to say which check failed.
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    const timer = setTimeout(() => {
      tlsSocket.destroy();
      resolve({ error: Object.assign(new Error('TLS handshake timed out'), { code: 'ETIMEDOUT' }) });
    }, remaining(step.deadline));
    tlsSocket.once('secureConnect', () => {
      clearTimeout(timer);
      tlsSocket.removeAllListeners('error');
      resolve({ socket: tlsSocket });
    });
    tlsSocket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      tlsSocket.destroy();
      resolve({ error });
    });
  });
}

/** OpenSSL names the alert the server sent: `sslv3 alert bad certificate` (42), `tlsv13 alert certificate required` (116). */
const CLIENT_CERT_ALERT =
  /alert (bad certificate|certificate required|certificate expired|certificate revoked|unknown ca|certificate unknown|unsupported certificate|access denied|handshake failure)/i;
const NOT_TLS =
  /wrong version number|packet length too long|unknown protocol|record layer failure|http request/i;

async function classifyTlsError(error: NodeJS.ErrnoException, step: Step): Promise<AccessProblem> {
  const text = `${error.code ?? ''} ${error.message}`;
  const alert = CLIENT_CERT_ALERT.exec(text);
  if (alert) {
    const detail = `TLS alert ${alertNumber(text)}${alert[1] ? `, ${alert[1]}` : ''}`;
    const tls = step.opts.tls;
    if (!tls?.certChain) return step.problem('client-cert-required', detail);
    // The server does not say why; what is wrong with our certificate can be seen from here.
    const own = ownCertificateProblem(tls);
    return step.problem('client-cert-rejected', own ? `${detail}; ${own}` : detail);
  }
  if (error.code === 'ETIMEDOUT') return step.problem('no-answer', 'no TLS handshake');
  if (NOT_TLS.test(text) || error.code === 'ECONNRESET' || /disconnected before/.test(text)) {
    if (await speaksPlainHttp(step)) return step.problem('tls-to-plain-port');
  }
  return step.problem('reset', error.message.split('\n')[0] ?? '');
}

function classifyAuthorization(error: Error | null, cert: PeerCertificate, step: Step): AccessProblem {
  // Node hands the verification result over as a string code despite its Error typing.
  const code = String(error ?? '');
  if (code === 'CERT_HAS_EXPIRED') return step.problem('server-cert-expired', cert.valid_to);
  if (code === 'CERT_NOT_YET_VALID') return step.problem('server-cert-not-yet-valid', cert.valid_from);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return step.problem('name-mismatch', cert.subjectaltname ?? 'no subjectAltName');
  return step.problem('unknown-ca', `${code}, issued by ${cert.issuer?.CN ?? 'an unknown CA'}`);
}

async function checkPlain(socket: Socket, step: Step): Promise<AccessProblem | undefined> {
  const answer = await exchange(socket, step);
  if (answer.kind === 'response' && /Client sent an HTTP request to an HTTPS server/.test(answer.body))
    return step.problem('http-to-tls-port');
  if (answer.kind === 'closed' || answer.kind === 'error') {
    if (await speaksTls(step)) return step.problem('http-to-tls-port');
    return step.problem('reset', answer.kind === 'error' ? (answer.error.code ?? '') : 'closed');
  }
  return judgeAnswer(answer, step);
}

/** An answer to GET /version: etcd's `{"etcdserver":...}`, or something that is not etcd. */
function judgeAnswer(answer: Exchange, step: Step): AccessProblem | undefined {
  if (answer.kind === 'timeout') return step.problem('no-answer');
  if (answer.kind !== 'response') return step.problem('reset', 'closed');
  if (/"etcdserver"/.test(answer.body)) return undefined;
  return step.problem('not-etcd', `GET /version answered ${answer.head.split('\r\n')[0] ?? ''}`);
}

/** Sends GET /version and reads the answer (bounded), without any HTTP library in between. */
function exchange(socket: Socket, step: Step): Promise<Exchange> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (result: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), remaining(step.deadline));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      // The head and a little body are enough: /version is tiny, the 400 text is one line.
      if (end >= 0 && text.length > end + 4) {
        finish({ kind: 'response', head: text.slice(0, end), body: text.slice(end + 4, end + 1024) });
      }
    });
    socket.once('end', () => {
      const bytes = Buffer.concat(chunks);
      const text = bytes.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (text.startsWith('HTTP/') && end >= 0)
        finish({ kind: 'response', head: text.slice(0, end), body: text.slice(end + 4) });
      else finish({ kind: 'closed', bytes });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => finish({ kind: 'error', error }));
    socket.write(`GET /version HTTP/1.1\r\nHost: ${hostHeader(step)}\r\nConnection: close\r\n\r\n`);
  });
}

async function speaksPlainHttp(step: Step): Promise<boolean> {
  const socket = await openTcp(step.host, step.port, step.deadline);
  if (!('socket' in socket)) return false;
  const answer = await exchange(socket.socket, step);
  return answer.kind === 'response' && answer.head.startsWith('HTTP/');
}

/** A TLS server answers a hello with its certificate (or an alert); anything else is not TLS. */
async function speaksTls(step: Step): Promise<boolean> {
  const socket = await openTcp(step.host, step.port, step.deadline);
  if (!('socket' in socket)) return false;
  const result = await handshakeTls(socket.socket, { ...step, opts: { ...step.opts, tls: undefined } });
  if ('socket' in result) {
    result.socket.destroy();
    return true;
  }
  return CLIENT_CERT_ALERT.test(result.error.message);
}

/** Our client certificate, checked locally: expired, not valid yet, or not issued by the CA we were given. */
export function ownCertificateProblem(tls: EtcdTlsFiles, now = Date.now()): string | undefined {
  if (!tls.certChain) return undefined;
  try {
    const cert = new X509Certificate(tls.certChain);
    if (Date.parse(cert.validTo) < now) return `our client certificate expired on ${cert.validTo}`;
    if (Date.parse(cert.validFrom) > now)
      return `our client certificate is not valid until ${cert.validFrom}`;
    if (tls.rootCertificate) {
      const ca = new X509Certificate(tls.rootCertificate);
      if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey))
        return `our client certificate is issued by ${issuerCn(cert)}, not by the CA in caFile (${issuerCn(ca, 'subject')})`;
    }
  } catch (err) {
    return `our client certificate cannot be read (${(err as Error).message})`;
  }
  return undefined;
}

/** The CN of a certificate's issuer (or subject), else the whole name. */
export function issuerCn(cert: X509Certificate, field: 'issuer' | 'subject' = 'issuer'): string {
  return /CN=([^\n,]+)/.exec(cert[field])?.[1] ?? cert[field];
}

function alertNumber(text: string): string {
  return /SSL alert number (\d+)/.exec(text)?.[1] ?? '?';
}

function hostHeader(step: Step): string {
  return isIP(step.host) === 6 ? `[${step.host}]:${step.port}` : `${step.host}:${step.port}`;
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}
