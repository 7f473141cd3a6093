import type { ClusterConfig } from './schema.js';

/**
 * Whether a cluster may be named, or reported, in a channel: `slack.allowedChannels` lists Slack
 * channel IDs (names can be renamed and reused, so they never count); none listed means anywhere.
 * Commands, digests and digest listings all ask this.
 */
export function channelAllows(cluster: Pick<ClusterConfig, 'slack'>, channel: string): boolean {
  const allowed = cluster.slack?.allowedChannels ?? [];
  return allowed.length === 0 || allowed.includes(channel);
}
