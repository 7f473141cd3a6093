import { noop } from 'cockatiel';
import { Etcd3, type IOptions } from 'etcd3';
import type { ClusterConfig, ResolvedCluster } from '../config/schema.js';

/**
 * One etcd3 client per member endpoint, so a dead or hung member can never stall the others,
 * and a second client per member for maintenance calls: a NOSPACE-rejected put trips etcd3's
 * per-host circuit breaker for 5 s, which must not block Status, Alarm or Defragment.
 */
export interface MemberClients {
  endpoint: string;
  kv: Etcd3;
  maintenance: Etcd3;
}

export interface EtcdClients {
  members: MemberClients[];
  forEndpoint(endpoint: string): MemberClients;
  close(): void;
}

export interface EtcdTlsFiles {
  rootCertificate: Buffer;
  certChain?: Buffer;
  privateKey?: Buffer;
}

export interface CreateEtcdClientsDeps {
  readFileBuffer: (path: string) => Promise<Buffer>;
}

/** Dial quickly: a member that cannot connect in 2 s is reported, not waited for (etcdctl uses 2 s). */
export const DIAL_TIMEOUT_MS = 2000;

export async function loadEtcdTls(
  cluster: ClusterConfig,
  deps: CreateEtcdClientsDeps,
): Promise<EtcdTlsFiles | undefined> {
  const tls = cluster.etcd.tls;
  if (!tls?.caFile) return undefined;
  const files: EtcdTlsFiles = { rootCertificate: await deps.readFileBuffer(tls.caFile) };
  if (tls.certFile) files.certChain = await deps.readFileBuffer(tls.certFile);
  if (tls.keyFile) files.privateKey = await deps.readFileBuffer(tls.keyFile);
  return files;
}

export function createMemberClients(endpoint: string, tls: EtcdTlsFiles | undefined): MemberClients {
  const options = (): IOptions => {
    const opts: IOptions = {
      hosts: [endpoint],
      dialTimeout: DIAL_TIMEOUT_MS,
      // No retries and no circuit breaker: a probe must report what it saw, once, within its deadline.
      faultHandling: { global: noop, host: () => noop },
    };
    if (tls) opts.credentials = tls;
    return opts;
  };
  return { endpoint, kv: new Etcd3(options()), maintenance: new Etcd3(options()) };
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
        clients.maintenance.close();
      }
      members.clear();
    },
  };
}
