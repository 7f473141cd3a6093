import type { ClusterConfig, ConfigFile, ResolvedCluster } from '../config/schema.js';
import type { MemberInfo } from '../probes/evidence.js';
import type { Outcome } from '../probes/outcome.js';
import { createEtcdClients, type EtcdClients, type EtcdTlsFiles, loadEtcdTls } from './etcd-clients.js';
import { etcdEndpointsOf, kubernetesLoader } from './cluster-reach.js';
import { createHttpGet, type HttpClient } from './http.js';

/** One cluster's etcd gRPC clients and HTTP agent, with what the doctor remembers about it. */
export interface ClusterClients {
  cluster: ResolvedCluster;
  /** `clusters[0].etcd`: where fixes point in the config file. */
  etcdPath: string;
  tls: EtcdTlsFiles | undefined;
  etcd: EtcdClients;
  http: HttpClient;
  /** The last member list that answered, reused by health checks for MEMBER_LIST_REUSE_MS. */
  memberList?: { outcome: Outcome<MemberInfo[]>; atMs: number };
}

/** A cluster's clients, the runs using them now, and whether any run asked to keep them. */
export interface ClientsEntry {
  clients: Promise<ClusterClients>;
  users: number;
  keep: boolean;
}

export interface ClientPool {
  /** Takes the cluster's clients for one run; `release` gives them back. */
  acquire(cluster: ClusterConfig, keep: boolean): ClientsEntry;
  /** Closes them when no run uses them and none asked to keep them. */
  release(name: string, entry: ClientsEntry): void;
  close(): Promise<void>;
}

/**
 * The doctor's clients, kept per cluster and reference-counted: a warm health check reuses its gRPC
 * channels; a digest's one-off runs close theirs when done. A cluster configured with `kubernetes`
 * only gets its etcd client URLs from the etcd pods.
 */
export function createClientPool(deps: {
  config: ConfigFile;
  readFileBuffer: (path: string) => Promise<Buffer>;
}): ClientPool {
  const clients = new Map<string, ClientsEntry>();
  /** Takes the cluster's clients for one run; `release` gives them back. */
  const acquire = (cluster: ClusterConfig, keep: boolean): ClientsEntry => {
    let entry = clients.get(cluster.name);
    if (!entry) {
      const created: ClientsEntry = {
        clients: (async () => {
          const endpoints = await etcdEndpointsOf(cluster, kubernetesLoader(cluster, deps.readFileBuffer));
          const resolved: ResolvedCluster = { ...cluster, etcd: { ...cluster.etcd, endpoints } };
          const etcdPath = `clusters[${deps.config.clusters.indexOf(cluster)}].etcd`;
          const tls = await loadEtcdTls(cluster, deps, etcdPath);
          return {
            cluster: resolved,
            etcdPath,
            tls,
            etcd: createEtcdClients(resolved, tls),
            http: createHttpGet(tls),
          };
        })(),
        users: 0,
        keep: false,
      };
      created.clients.catch(() => {
        if (clients.get(cluster.name) === created) clients.delete(cluster.name);
      });
      clients.set(cluster.name, created);
      entry = created;
    }
    entry.users += 1;
    entry.keep ||= keep;
    return entry;
  };

  const release = (name: string, entry: ClientsEntry): void => {
    entry.users -= 1;
    if (entry.users > 0 || entry.keep || clients.get(name) !== entry) return;
    clients.delete(name);
    void entry.clients.then(closeClients, () => undefined);
  };

  return {
    acquire,
    release,
    async close() {
      const all = await Promise.allSettled([...clients.values()].map((e) => e.clients));
      clients.clear();
      for (const entry of all) if (entry.status === 'fulfilled') await closeClients(entry.value);
    },
  };
}

async function closeClients(entry: ClusterClients): Promise<void> {
  entry.etcd.close();
  await entry.http.close();
}
