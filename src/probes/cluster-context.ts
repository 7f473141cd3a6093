import type { EtcdClients } from '../clients/etcd-clients.js';
import type { HttpGet } from '../clients/http.js';

/** What a cluster-wide probe gets: every member's clients; it asks whichever answers first. */
export interface ClusterProbeContext {
  clients: EtcdClients;
  httpGet: HttpGet;
  now: () => number;
  /** Ask the first member alone, and the others only after this long or its failure (firstAnswer). */
  hedgeMs?: number;
}

/**
 * Resolves with the first member that answers; fails only when all fail. A hung member
 * costs nothing as long as another one answers. With `hedgeMs`, the first member is asked
 * alone and the others only when it fails or has not answered in `hedgeMs`.
 */
export async function firstAnswer<T>(
  endpoints: string[],
  ask: (endpoint: string) => Promise<T>,
  hedgeMs?: number,
): Promise<T> {
  const [head, ...rest] = endpoints;
  const asked =
    hedgeMs === undefined || head === undefined || rest.length === 0
      ? endpoints.map((endpoint) => ask(endpoint))
      : hedged(ask(head), () => Promise.any(rest.map((endpoint) => ask(endpoint))), hedgeMs);
  try {
    return await Promise.any(asked);
  } catch (err) {
    const errors = flatten(err);
    if (errors[0] !== undefined) throw mostTelling(errors);
    throw err;
  }
}

/** The first answer, and the others asked only once it fails or `ms` pass (never when it answers in time). */
function hedged<T>(first: Promise<T>, others: () => Promise<T>, ms: number): Array<Promise<T>> {
  const rest = new Promise<T>((resolve, reject) => {
    const go = () => {
      clearTimeout(timer);
      others().then(resolve, reject);
    };
    const timer = setTimeout(go, ms);
    first.then(() => clearTimeout(timer), go);
  });
  return [first, rest];
}

/** Of every member's failure, the one that says most: a refusal or an error before any deadline. */
export function mostTelling(errors: unknown[]): unknown {
  return errors.find((e) => !/deadline/i.test(String(e))) ?? errors[0];
}

function flatten(err: unknown): unknown[] {
  if (!(err instanceof AggregateError)) return [];
  return err.errors.flatMap((e) => (e instanceof AggregateError ? flatten(e) : [e]));
}
