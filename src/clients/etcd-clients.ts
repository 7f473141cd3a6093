import { isIPv4, isIPv6 } from 'node:net';
import { noop } from 'cockatiel';
import { Etcd3, type IOptions } from 'etcd3';
import type { ClusterConfig, ResolvedCluster } from '../config/schema.js';
import { EtcdDoctorError } from '../errors.js';
import { tlsChannelOptions } from './grpc-tls.js';

/**
 * One etcd3 client per member endpoint, so a dead or hung member can never stall the others,
 * and a second client per member for the admin calls (maintenance and cluster: Status, Alarm,
 * Defragment, MemberList, compaction): a NOSPACE-rejected put trips etcd3's per-host circuit
 * breaker for 5 s, which must not block them.
 */
export interface MemberClients {
  endpoint: string;
  kv: Etcd3;
  admin: Etcd3;
}

export interface EtcdClients {
  members: MemberClients[];
  forEndpoint(endpoint: string): MemberClients;
  close(): void;
}

export interface EtcdTlsFiles {
  /** Undefined: the system's trusted CAs. */
  rootCertificate?: Buffer;
  certChain?: Buffer;
  privateKey?: Buffer;
}

export interface CreateEtcdClientsDeps {
  readFileBuffer: (path: string) => Promise<Buffer>;
}

/** Dial quickly: a member that cannot connect in 2 s is reported, not waited for (etcdctl uses 2 s). */
export const DIAL_TIMEOUT_MS = 2000;

/**
 * Reads the cluster's `etcd.tls` files. A file that cannot be read is a config error naming the
 * field (`clusters[0].etcd.tls.certFile: cannot read /etc/etcd/client.crt (ENOENT)`).
 */
export async function loadEtcdTls(
  cluster: ClusterConfig,
  deps: CreateEtcdClientsDeps,
  configPath = `cluster ${cluster.name}: etcd`,
): Promise<EtcdTlsFiles | undefined> {
  const tls = cluster.etcd.tls;
  if (!tls || !(tls.caFile || tls.certFile || tls.keyFile)) return undefined;
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) {
    const missing = tls.certFile ? 'keyFile' : 'certFile';
    throw new EtcdDoctorError(
      'config_invalid',
      `${configPath}.tls.${missing}: a client certificate needs both certFile and keyFile`,
    );
  }
  const read = async (field: 'caFile' | 'certFile' | 'keyFile'): Promise<Buffer | undefined> => {
    const path = tls[field];
    if (!path) return undefined;
    try {
      return await deps.readFileBuffer(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new EtcdDoctorError(
        'config_invalid',
        `${configPath}.tls.${field}: cannot read ${path} (${code})`,
        {
          cause: err,
        },
      );
    }
  };
  const [rootCertificate, certChain, privateKey] = await Promise.all([
    read('caFile'),
    read('certFile'),
    read('keyFile'),
  ]);
  return {
    ...(rootCertificate ? { rootCertificate } : {}),
    ...(certChain ? { certChain } : {}),
    ...(privateKey ? { privateKey } : {}),
  };
}

/**
 * The URL's scheme decides, as it does for etcdctl (clientv3 processCreds): `https://` speaks TLS
 * with the cluster's files (or the system CAs), `http://` speaks plain HTTP/2 even when TLS files
 * are configured, so a mistyped scheme shows up as such instead of silently working or not.
 */
export function createMemberClients(
  endpoint: string,
  tls: EtcdTlsFiles | undefined,
  /** Channel options over the defaults (the space scan's larger receive limit). */
  extraGrpcOptions: Record<string, number> = {},
): MemberClients {
  const secure = endpoint.toLowerCase().startsWith('https://');
  const grpcOptions = {
    ...extraGrpcOptions,
    // grpc-js looks up a TXT record (_grpc_config.<host>) for every DNS name; etcdctl does not,
    // and etcd publishes no service config. Only the A/AAAA lookup is wanted.
    'grpc.service_config_disable_resolution': 1,
    // No channelz: nothing here reads it, and each channel, subchannel and socket registers with it.
    'grpc.enable_channelz': 0,
    ...(secure ? tlsChannelOptions(tls ?? {}) : {}),
  };
  const options = (): IOptions => ({
    hosts: [grpcTarget(endpoint)],
    dialTimeout: DIAL_TIMEOUT_MS,
    // No retries and no circuit breaker: a probe must report what it saw, once, within its deadline.
    faultHandling: { global: noop, host: () => noop },
    grpcOptions,
  });
  return { endpoint, kv: new Etcd3(options()), admin: new Etcd3(options()) };
}

/**
 * The gRPC target etcd3 dials. etcd3 strips `http://` and grpc-js resolves the rest by DNS; an IP
 * literal gets grpc-js's `ipv4:`/`ipv6:` scheme instead, which dials the address as the DNS
 * resolver would (same address, same default authority `host:port`) without building a c-ares
 * resolver per channel (~0.2 ms of CPU each, 6-7 channels per diagnosed cluster). etcd3 would build
 * TLS credentials for an https:// host itself; the channel override (grpc-tls.ts) replaces them.
 */
export function grpcTarget(endpoint: string): string {
  const plain = endpoint.replace(/^https:/i, 'http:');
  const match = /^http:\/\/(\[[^\]]+\]|[^/:]+):(\d+)\/*$/i.exec(plain);
  const host = match?.[1] ?? '';
  if (isIPv4(host)) return `ipv4:${host}:${match?.[2]}`;
  if (host.startsWith('[') && isIPv6(host.slice(1, -1))) return `ipv6:${host}:${match?.[2]}`;
  return plain;
}

export function createEtcdClients(cluster: ResolvedCluster, tls: EtcdTlsFiles | undefined): EtcdClients {
  const members = new Map<string, MemberClients>();
  for (const endpoint of cluster.etcd.endpoints) members.set(endpoint, createMemberClients(endpoint, tls));
  return {
    get members() {
      return [...members.values()];
    },
    forEndpoint(endpoint: string) {
      let clients = members.get(endpoint);
      if (!clients) {
        clients = createMemberClients(endpoint, tls);
        members.set(endpoint, clients);
      }
      return clients;
    },
    close() {
      for (const clients of members.values()) {
        clients.kv.close();
        clients.admin.close();
      }
      members.clear();
    },
  };
}
