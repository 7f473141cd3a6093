import type { EtcdClients } from '../clients/etcd-clients.js';
import type { HttpGet } from '../clients/http.js';

/** What a cluster-wide probe gets: every member's clients; it asks whichever answers first. */
export interface ClusterProbeContext {
  clients: EtcdClients;
  httpGet: HttpGet;
  now: () => number;
}

/**
 * Resolves with the first member that answers; fails only when all fail. A hung member
 * costs nothing as long as another one answers.
 */
export async function firstAnswer<T>(endpoints: string[], ask: (endpoint: string) => Promise<T>): Promise<T> {
  try {
    return await Promise.any(endpoints.map((endpoint) => ask(endpoint)));
  } catch (err) {
    if (err instanceof AggregateError && err.errors[0] !== undefined) {
      throw err.errors.find((e) => !/deadline/i.test(String(e))) ?? err.errors[0];
    }
    throw err;
  }
}
