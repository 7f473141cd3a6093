import type { MemberClients } from '../clients/etcd-clients.js';
import type { HttpGet } from '../clients/http.js';
import type { MemberTarget } from './evidence.js';

/** What a per-member probe gets: the member, its own clients, and injected I/O. */
export interface MemberProbeContext {
  target: MemberTarget;
  clients: MemberClients;
  httpGet: HttpGet;
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  metricsWindowMs: number;
}

/** gRPC deadline for a call that must finish inside the probe's own timeout. */
export function deadline(now: () => number, timeoutMs: number): { deadline: Date } {
  return { deadline: new Date(now() + timeoutMs) };
}
