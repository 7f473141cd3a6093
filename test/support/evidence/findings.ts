/**
 * The findings about the cluster, without `observer-load`: an info finding about etcd-doctor's own
 * event loop. On a 2-core CI host running two suites beside their etcd members, a health run's
 * short window can catch one stall of the test process itself (673 ms once, with one check
 * running); that is a true statement about the observer and says nothing about the cluster under
 * test. Access findings (no-access, unreachable-from-here) stay: in the lab they would be wrong.
 */
export function aboutTheCluster<F extends { cause: string }>(findings: readonly F[]): F[] {
  // known-bug: the lab's Debian etcd has fixes since (faultsNow below); never the fault under test.
  return findings.filter((f) => f.cause !== 'observer-load' && f.cause !== 'known-bug');
}

/**
 * Findings that say something is wrong now: warning or worse, and not a known bug of the release
 * (the lab runs Debian's etcd 3.4.23 or 3.5.30, both with fixes since; known-bug says so on every
 * run, a true statement about the binary, never about the fault under test).
 */
export function faultsNow<F extends { cause: string; severity: string }>(findings: readonly F[]): F[] {
  return findings.filter((f) => f.severity !== 'info' && f.cause !== 'known-bug');
}
