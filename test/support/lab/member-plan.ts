import { join } from 'node:path';
import type { ChildRegistry } from './child-registry.js';
import { type LabPki, tlsMemberArgs } from './lab-tls.js';
import { createMemberProcess, type MemberProcess } from './member-process.js';

/** The resolved options of a lab (EtcdLabOptions with every default filled in). */
export interface LabConfig {
  size: number;
  quotaBackendBytes: number | undefined;
  baseDir: string;
  etcdBinary: string;
  etcdctlBinary: string | undefined;
  straceBinary: string | undefined;
  logger: 'zap' | 'capnslog';
  extraArgs: string[];
  host: string;
  tls: boolean;
  /** With `tls`: how long the members' server certificates stay valid (default a year, as kubeadm's). */
  serverCertDays: number | undefined;
  wrap: ((member: string) => string[] | undefined) | undefined;
}

/** Where one member listens and keeps its data. */
export interface MemberPlan {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  /** Base URL of /metrics: its own --listen-metrics-urls, or the client URL in a TLS lab (kubeadm's layout). */
  readonly metricsUrl: string;
  readonly dataDir: string;
}

/** One member of a lab cluster. `pid` follows the member across kill/restart; undefined while it is down. */
export interface LabMember extends MemberPlan {
  readonly pid: number | undefined;
}

/** `proc` is asked each time: a member started again with other flags (join) has a new process. */
export function labMember(plan: MemberPlan, proc: () => MemberProcess | undefined): LabMember {
  return {
    ...plan,
    get pid() {
      return proc()?.pid;
    },
  };
}

/** How a member joins: the founding members start `new`; a member added later joins `existing`. */
export interface JoinSpec {
  initialCluster: string;
  token: string;
  state: 'new' | 'existing';
}

export const LOG_RING_BYTES = 2 * 1024 * 1024;

/** Member `index` (0-based) on three ports: client, peer, metrics (unused with TLS). */
export function planMember(
  config: LabConfig,
  dir: string,
  index: number,
  ports: readonly number[],
): MemberPlan {
  const url = (port: number | undefined): string =>
    `${config.tls ? 'https' : 'http'}://${config.host}:${port}`;
  const clientUrl = url(ports[0]);
  return {
    name: `etcd-${index + 1}`,
    clientUrl,
    peerUrl: url(ports[1]),
    metricsUrl: config.tls ? clientUrl : url(ports[2]),
    dataDir: join(dir, `etcd-${index + 1}.etcd`),
  };
}

/** `--initial-cluster-state` is ignored by etcd once the data dir holds a WAL, so restart reuses these. */
export function memberArgs(
  config: LabConfig,
  plan: MemberPlan,
  join: JoinSpec,
  pki: LabPki | undefined,
): string[] {
  const args = [
    ...['--name', plan.name, '--data-dir', plan.dataDir],
    ...['--listen-client-urls', plan.clientUrl, '--advertise-client-urls', plan.clientUrl],
    ...['--listen-peer-urls', plan.peerUrl, '--initial-advertise-peer-urls', plan.peerUrl],
    ...['--initial-cluster', join.initialCluster, '--initial-cluster-state', join.state],
    ...['--initial-cluster-token', join.token],
    ...['--logger', config.logger, '--log-outputs', 'stderr'],
    // kubeadm serves metrics on the TLS client URL only; the plain lab has its own listener.
    ...(pki ? tlsMemberArgs(pki) : ['--listen-metrics-urls', plan.metricsUrl]),
  ];
  if (config.quotaBackendBytes !== undefined) {
    args.push('--quota-backend-bytes', String(config.quotaBackendBytes));
  }
  return [...args, ...config.extraArgs];
}

/** Creates the member's process (with the configured wrapper) and starts it. */
export function spawnMember(
  config: LabConfig,
  plan: MemberPlan,
  args: string[],
  registry: ChildRegistry,
): MemberProcess {
  const [wrapper, ...wrapperArgs] = config.wrap?.(plan.name) ?? [];
  const member = createMemberProcess({
    name: plan.name,
    binary: wrapper ?? config.etcdBinary,
    args: wrapper === undefined ? args : [...wrapperArgs, config.etcdBinary, ...args],
    registry,
    logBytes: LOG_RING_BYTES,
  });
  member.start();
  return member;
}
