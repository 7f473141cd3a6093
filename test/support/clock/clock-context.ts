import type { Etcd3 } from 'etcd3';
import type { MemberClients } from '../../../src/clients/etcd-clients.js';
import type { HttpGet } from '../../../src/clients/http.js';
import { abortableSleep } from '../../../src/timing.js';
import type { MemberProbeContext } from '../../../src/probes/member-context.js';

/** A context for running the clock probe alone against `endpoint`, with real HTTP and real time. */
export function clockProbeContext(name: string, endpoint: string, httpGet: HttpGet): MemberProbeContext {
  return {
    target: { name, endpoint, metricsUrl: '', id: undefined },
    clients: noGrpc(endpoint),
    httpGet,
    now: Date.now,
    sleep: abortableSleep,
    metricsWindowMs: 0,
  };
}

/** The clock probe must not touch gRPC: these clients throw if it does. */
function noGrpc(endpoint: string): MemberClients {
  return {
    endpoint,
    get kv(): Etcd3 {
      throw new Error('the clock probe used the kv client');
    },
    get admin(): Etcd3 {
      throw new Error('the clock probe used the maintenance client');
    },
  };
}
