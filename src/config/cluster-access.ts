import type { ClusterConfig } from './schema.js';
import { EtcdDoctorError } from '../errors.js';
import { channelAllows } from './channels.js';

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

/** The configured clusters as the Doctor reads them (doctor.ts): `cluster` throws `cluster_unknown`. */
interface ClusterLookup {
  cluster(name: string): ClusterConfig;
  clusterNames(): string[];
}

export function createClusterAccess(doctor: ClusterLookup): ClusterAccess {
  // By channel ID only: a channel name can be renamed, or reused by another channel.
  const allowedIn = (name: string, from: ChannelOrigin): boolean =>
    channelAllows(doctor.cluster(name), from.channel);
  return {
    names: () => doctor.clusterNames(),
    config: (name) => doctor.cluster(name),
    allowedIn,
    get(name, from) {
      const cluster = doctor.cluster(name);
      if (!allowedIn(name, from)) {
        const allowed = (cluster.slack?.allowedChannels ?? []).join(', ');
        throw new EtcdDoctorError(
          'channel_forbidden',
          `cluster "${name}" can only be used in ${allowed}; ask there, or have it added to slack.allowedChannels of "${name}" in the config`,
        );
      }
      return cluster;
    },
  };
}
