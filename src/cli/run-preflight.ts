import { readFile } from 'node:fs/promises';
import { kubernetesLoader } from '../clients/cluster-reach.js';
import { findCluster, loadConfigFor } from '../config/load-config.js';
import { EtcdDoctorError } from '../errors.js';
import { runPreflight } from '../remediation/preflight.js';
import { DEFAULT_REMEDIATION_SETTINGS, settingsFor } from '../remediation/settings.js';
import { type CliIo, EXIT } from './io.js';

export interface PreflightOptions {
  config?: string;
}

/**
 * `etcd-doctor preflight <cluster>`: whether components/remediation's admission policies would be
 * enforced there, checked with the credentials the worker uses (run it in a worker pod). 0 ready,
 * 1 refused (one line saying why), 2 usage or config error, 3 could not check.
 */
export async function runPreflightCommand(
  clusterName: string,
  options: PreflightOptions,
  io: CliIo,
): Promise<number> {
  const config = await loadConfigFor(options.config, io.env);
  const cluster = findCluster(config, clusterName);
  if (!cluster.kubernetes)
    throw new EtcdDoctorError(
      'config_invalid',
      `cluster ${clusterName} has no kubernetes section: remediation through Kubernetes (components/remediation) does not apply to it`,
    );
  const kube = await kubernetesLoader(cluster, (p) => readFile(p))();
  const result = await runPreflight(clusterName, {
    kube,
    settings: settingsFor(cluster, DEFAULT_REMEDIATION_SETTINGS),
    // Each call has its own deadline (timeoutMs); nothing cancels the command as a whole.
    signal: new AbortController().signal,
    timeoutMs: Math.max(config.probes.timeoutMs, 5000),
  });
  if (result.ok) {
    io.stdout(result.lines.join('\n'));
    return EXIT.healthy;
  }
  io.stderr(`etcd-doctor: refusing: ${result.reason}`);
  return result.couldNotCheck ? EXIT.couldNotCheck : EXIT.unhealthy;
}
