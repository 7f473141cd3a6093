/**
 * The findings about the cluster, without `observer-load`: an info finding about etcd-doctor's own
 * event loop. On a 2-core CI host running two suites beside their etcd members, a health run's
 * short window can catch one stall of the test process itself (673 ms once, with one check
 * running); that is a true statement about the observer and says nothing about the cluster under
 * test. Access findings (no-access, unreachable-from-here) stay: in the lab they would be wrong.
 */
export function aboutTheCluster<F extends { cause: string }>(findings: readonly F[]): F[] {
  return findings.filter((f) => f.cause !== 'observer-load');
}
