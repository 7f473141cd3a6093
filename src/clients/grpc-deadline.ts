/**
 * A gRPC call's deadline, `ms` from now on this process's wall clock. grpc-js compares a deadline
 * with `Date.now()`, never with the clock a role was given: a role's `now` may run from any date (a
 * test's maintenance window, a replay), and a deadline built on it expires at once or never. So
 * every etcd call takes its deadline from here, as a duration, and the injected clock keeps to what
 * it decides (windows, ages, since when).
 */
export function grpcDeadline(ms: number): { deadline: Date } {
  return { deadline: new Date(Date.now() + Math.max(0, ms)) };
}

/**
 * A call that failed with DEADLINE_EXCEEDED well before the time it was given never reached the
 * point of asking etcd: the deadline was ours, already past (a clock that moved, a run past its own
 * end). Such a failure says nothing about the member, and the caller must say so instead of
 * calling the member unhealthy. Returns that sentence, or undefined for any other failure.
 */
export function ownDeadlineProblem(err: unknown, elapsedMs: number, allottedMs: number): string | undefined {
  const message = err instanceof Error ? err.message : String(err);
  if (!/deadline exceeded/i.test(message.slice(0, 300))) return undefined;
  if (elapsedMs >= allottedMs / 2) return undefined;
  return `etcd-doctor's own deadline for the call had passed after ${Math.round(elapsedMs)} ms of the ${allottedMs} ms it was given, so nothing was asked of the member`;
}
