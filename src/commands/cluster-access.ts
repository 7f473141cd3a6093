import type { ClusterConfig } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { EtcdDoctorError } from '../errors.js';

/** Where a command comes from, as far as channel restrictions care. */
export interface ChannelOrigin {
  channel: string;
  channelName: string | undefined;
}

/** The clusters a chat may name, with `slack.allowedChannels` applied. Reads config only. */
export interface ClusterAccess {
  names(): string[];
  config(name: string): ClusterConfig;
  /** Throws `cluster_unknown` (listing the known ones) or `channel_forbidden` (naming the allowed channels). */
  get(name: string, from: ChannelOrigin): ClusterConfig;
  allowedIn(name: string, from: ChannelOrigin): boolean;
}

/** `#ops` for a name, the ID as configured otherwise. */
function showChannel(entry: string): string {
  return /^[CGD][A-Z0-9]{2,}$/.test(entry) || entry.startsWith('#') ? entry : `#${entry}`;
}

export function createClusterAccess(doctor: Pick<Doctor, 'cluster' | 'clusterNames'>): ClusterAccess {
  const allowedIn = (name: string, from: ChannelOrigin): boolean => {
    const allowed = doctor.cluster(name).slack?.allowedChannels ?? [];
    if (allowed.length === 0) return true;
    return allowed.some(
      (entry) =>
        entry === from.channel ||
        (from.channelName !== undefined && entry.replace(/^#/, '') === from.channelName),
    );
  };
  return {
    names: () => doctor.clusterNames(),
    config: (name) => doctor.cluster(name),
    allowedIn,
    get(name, from) {
      const cluster = doctor.cluster(name);
      if (!allowedIn(name, from)) {
        const allowed = (cluster.slack?.allowedChannels ?? []).map(showChannel).join(', ');
        throw new EtcdDoctorError(
          'channel_forbidden',
          `cluster "${name}" can only be used in ${allowed}; ask there, or have it added to slack.allowedChannels of "${name}" in the config`,
        );
      }
      return cluster;
    },
  };
}
