import { type AccessWhere, checkAccess } from './access-check.js';
import type { AccessProblem } from './access-problem.js';
import { ACCESS_CHECK_TIMEOUT_MS, type CollectOptions } from './collect-options.js';
import type { MemberEvidence, MemberTarget } from './evidence.js';
import { subjectOf } from './member-targets.js';
import type { Outcome } from './outcome.js';

/*
 * After a member's Status failed: is it our access (TLS, URLs, DNS) or the member? The answer
 * replaces the probes' messages when it is ours, so no message calls the member down.
 */

export function checkMemberAccess(
  target: MemberTarget,
  opts: CollectOptions,
): Promise<AccessProblem | undefined> {
  const where: AccessWhere = {
    etcdPath: opts.etcdPath ?? `cluster ${opts.cluster.name}: etcd`,
    endpointIndex: target.endpointIndex,
  };
  return checkAccess({
    endpoint: target.endpoint,
    tls: opts.tls,
    timeoutMs: Math.min(opts.timeoutMs, ACCESS_CHECK_TIMEOUT_MS),
    where,
  }).catch(() => undefined);
}

/**
 * A member we could not reach because of our own access gets that reason on every probe, so no
 * message calls it down; for other problems (refused, hung) the probes keep their own words.
 */
export function withAccess(member: MemberEvidence, access: AccessProblem): MemberEvidence {
  if (!access.ours) return { ...member, access };
  const failure = {
    kind: 'access' as const,
    message: `${subjectOf(member.target)}: ${access.reason}: ${access.fix}`,
  };
  const replace = <T>(o: Outcome<T>): Outcome<T> =>
    o.ok || o.failure.kind === 'skipped' ? o : { ok: false, failure, durationMs: o.durationMs };
  return {
    ...member,
    access,
    health: replace(member.health),
    status: replace(member.status),
    metrics: replace(member.metrics),
    clock: replace(member.clock),
  };
}
