import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveBinary } from './binaries.js';
import { runCommand } from './run-command.js';

/**
 * Test certificates made with the openssl CLI at run time: EC P-256 keys, SHA-256 signatures,
 * like kubeadm's etcd PKI (server and peer certificates carry both serverAuth and clientAuth, and
 * the SAN names the address the member listens on). Never shipped: lab and tests only.
 */
export interface CertificateAuthority {
  readonly name: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly dir: string;
}

export interface IssuedCertificate {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface IssueOptions {
  /** File stem and CN. */
  name: string;
  /** IP SANs; default 127.0.0.1. */
  ips?: string[];
  dnsNames?: string[];
  /** Default: both (etcd uses its server certificate as a client too, for its gRPC gateway). */
  usage?: 'server' | 'client' | 'both';
  /** Default: from an hour ago to a year from now (kubeadm's validity: no test trips cert-expiry by accident). */
  notBefore?: Date;
  notAfter?: Date;
}

const OPENSSL_TIMEOUT_MS = 10_000;
const HOUR_MS = 3600_000;

/** A self-signed CA in `dir/<name>/`, ready to sign with `issueCertificate`. */
export async function createCertificateAuthority(dir: string, name: string): Promise<CertificateAuthority> {
  const caDir = join(dir, name);
  await mkdir(join(caDir, 'issued'), { recursive: true });
  await writeFile(join(caDir, 'index.txt'), '');
  await writeFile(join(caDir, 'serial'), '1000\n');
  await writeFile(join(caDir, 'ca.cnf'), caConfig(caDir));
  const ca = { name, dir: caDir, certFile: join(caDir, 'ca.crt'), keyFile: join(caDir, 'ca.key') };
  await openssl([
    ...['req', '-x509', '-new', ...EC_KEY, '-nodes', '-sha256'],
    ...['-keyout', ca.keyFile, '-out', ca.certFile, '-days', '3650', '-subj', `/CN=${name}`],
    ...['-addext', 'basicConstraints=critical,CA:TRUE'],
    ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  return ca;
}

/** A key and a certificate signed by `ca`, valid for exactly the given dates (expired ones included). */
export async function issueCertificate(
  ca: CertificateAuthority,
  opts: IssueOptions,
): Promise<IssuedCertificate> {
  const base = join(ca.dir, 'issued', opts.name);
  const files = { certFile: `${base}.crt`, keyFile: `${base}.key` };
  const ext = `${base}.ext.cnf`;
  await writeFile(ext, extensions(opts));
  await openssl([
    ...['req', '-new', ...EC_KEY, '-nodes', '-keyout', files.keyFile],
    ...['-out', `${base}.csr`, '-subj', `/CN=${opts.name}`],
  ]);
  const now = Date.now();
  await openssl([
    ...['ca', '-batch', '-notext', '-config', join(ca.dir, 'ca.cnf')],
    ...['-cert', ca.certFile, '-keyfile', ca.keyFile, '-in', `${base}.csr`, '-out', files.certFile],
    ...['-startdate', asn1Time(opts.notBefore ?? new Date(now - HOUR_MS))],
    ...['-enddate', asn1Time(opts.notAfter ?? new Date(now + 365 * 24 * HOUR_MS))],
    ...['-extfile', ext],
  ]);
  return files;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];

function caConfig(caDir: string): string {
  return [
    '[ca]',
    'default_ca = lab',
    '[lab]',
    `database = ${join(caDir, 'index.txt')}`,
    `new_certs_dir = ${join(caDir, 'issued')}`,
    `serial = ${join(caDir, 'serial')}`,
    'default_md = sha256',
    'policy = any',
    'unique_subject = no',
    '[any]',
    'commonName = supplied',
    '',
  ].join('\n');
}

function extensions(opts: IssueOptions): string {
  const sans = [
    ...(opts.ips ?? ['127.0.0.1']).map((ip) => `IP:${ip}`),
    ...(opts.dnsNames ?? []).map((name) => `DNS:${name}`),
  ];
  const usage = opts.usage ?? 'both';
  const eku = usage === 'both' ? 'serverAuth,clientAuth' : usage === 'server' ? 'serverAuth' : 'clientAuth';
  return [
    'basicConstraints = critical,CA:FALSE',
    'keyUsage = critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage = ${eku}`,
    ...(sans.length ? [`subjectAltName = ${sans.join(',')}`] : []),
    '',
  ].join('\n');
}

/** openssl ca's `YYYYMMDDHHMMSSZ`. */
function asn1Time(date: Date): string {
  return `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

async function openssl(args: string[]): Promise<void> {
  const binary = await resolveBinary('openssl');
  if (!binary) throw new Error('the TLS lab needs openssl (apt-get install openssl)');
  const res = await runCommand(binary, args, { timeoutMs: OPENSSL_TIMEOUT_MS });
  if (res.code !== 0) throw new Error(`openssl ${args[0]} failed (exit ${res.code}): ${res.stderr.trim()}`);
}
