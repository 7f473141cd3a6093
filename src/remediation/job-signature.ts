import type { RemediateJob } from '../queue/job-schemas.js';
import type { RecordSigner, Verdict } from '../state/record-signer.js';

/**
 * A remediation job is signed by the bot that queued it, over every field the worker acts on (who
 * pressed, which plan, where to answer, when), so a job put into the queue by anyone else, or
 * changed there, is refused (remediation-job.ts). The plan it names is signed on its own.
 */
export function signedJob(signer: RecordSigner, job: Omit<RemediateJob, 'sig'>): RemediateJob {
  return { ...job, sig: signer.sign('remediate-job', job.plan, jobText(job)) };
}

export function verifyJob(signer: RecordSigner, job: RemediateJob): Verdict {
  return signer.verify('remediate-job', job.plan, jobText(job), job.sig);
}

/** The signed fields in a fixed order: a JSON array, so no value can pass for another's boundary. */
function jobText(job: Omit<RemediateJob, 'sig'>): string {
  return JSON.stringify([job.v, job.kind, job.plan, job.cluster, job.channel, job.user, job.requestedAt]);
}
