import { loadEtcdTls } from '../clients/etcd-clients.js';
import { createHttpGet } from '../clients/http.js';
import type { ClusterConfig } from '../config/schema.js';
import { type FirstScrapes, takeFirstScrapes } from '../probes/first-scrapes.js';
import { loadModules } from './lazy-modules.js';
import type { DoctorDeps } from './options.js';

/** Doctor.firstScrapes: the configured members' first /metrics scrapes, on connections closed at once. */
export async function firstScrapesOf(
  cluster: ClusterConfig,
  deps: DoctorDeps,
): Promise<FirstScrapes | undefined> {
  if (!cluster.etcd.endpoints || deps.config.probes.metricsWindowMs <= 0) return undefined;
  await loadModules(cluster, 'diagnose');
  // An unreadable TLS file is the run's to report (config_invalid, naming the field).
  const tls = await loadEtcdTls(cluster, deps).catch(() => null);
  if (tls === null) return undefined;
  const http = createHttpGet(tls);
  try {
    const { timeoutMs, metricsWindowMs: windowMs } = deps.config.probes;
    return await takeFirstScrapes(cluster, { httpGet: http.get, now: Date.now }, { timeoutMs, windowMs });
  } finally {
    await http.close();
  }
}
