import type { ChatAdapter, MessageRef } from '../chat/adapter.js';
import type { Doctor } from '../doctor.js';
import type { BackupsJob } from '../queue/job-schemas.js';
import { backupsView } from '../report/backups-view.js';

/**
 * A `backups` job: a health check that also reads every listed snapshot (the cluster's revision
 * comes from its members' Status), answered once in the channel. A cluster without `backups`
 * never gets here: the command says so first.
 */
export async function runBackups(
  deps: { doctor: Pick<Doctor, 'run'>; chat: Pick<ChatAdapter, 'post'> },
  once: (jobId: string, deliver: () => Promise<MessageRef>) => Promise<boolean>,
  job: BackupsJob,
  jobId: string,
  signal: AbortSignal,
): Promise<{ cluster: string; snapshots: number }> {
  // A timed-out attempt stops reading files at once (the reader takes the signal).
  const report = await deps.doctor.run(job.cluster, 'health', { backups: true, keepClients: false, signal });
  await once(jobId, () => deps.chat.post({ channel: job.channel }, backupsView(report)));
  return { cluster: job.cluster, snapshots: report.backups?.snapshots.length ?? 0 };
}
