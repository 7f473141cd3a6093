import { hasBboltMagic } from '../etcd/snapshot/bbolt-file.js';
import { EtcdDoctorError } from '../errors.js';
import { cutText } from '../untrusted-text.js';
import { readHead } from './readers/sniff.js';

/**
 * An etcd snapshot holds every key of the cluster, every Secret among them (Kubernetes stores them
 * unencrypted unless encryption at rest is configured). Shared in a channel, everyone in it can
 * download it from Slack: etcd-doctor reads snapshots only in a direct message, and says why in one
 * line. The analysis of one never sends a value anywhere: key names, sizes and counts only.
 */

/** A Slack direct message with the bot (`D…`); group DMs and channels are not. */
export function isDirectMessage(channel: string): boolean {
  return /^D[A-Z0-9]+$/.test(channel);
}

/** A snapshot by its name, before anything is downloaded: `db` (a member's own), `*.db`, `*.db.gz`. */
export function snapshotByName(name: string): boolean {
  const base = name.split('/').at(-1)?.toLowerCase() ?? '';
  return base === 'db' || base.endsWith('.db') || base.endsWith('.db.gz');
}

/** The one line a snapshot shared outside a DM gets; nothing of it is read. */
export function snapshotInChannel(name: string): EtcdDoctorError {
  return new EtcdDoctorError(
    'command_invalid',
    `${cutText(name, 100)} is an etcd snapshot: it holds every Secret of its cluster, and everyone in this channel can download it, so I do not read it here. Delete it from this channel and share it with me in a direct message.`,
  );
}

/** Throws snapshotInChannel for the first downloaded file whose bytes are a snapshot (whatever its name). */
export async function refuseSnapshotsOutsideDm(
  channel: string,
  files: ReadonlyArray<{ path: string; name: string }>,
): Promise<void> {
  if (isDirectMessage(channel)) return;
  for (const file of files)
    if (snapshotByName(file.name) || hasBboltMagic(await readHead(file.path, 64)))
      throw snapshotInChannel(file.name);
}
