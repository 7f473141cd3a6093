/**
 * The result of one probe: its data, or how it failed. A probe that failed is evidence too; the
 * type has a file of its own so that every part of the evidence (etcd's and Kubernetes') shares it
 * without importing the others.
 */
/**
 * `access`: etcd-doctor's own configuration or credentials stopped it (TLS, URL, DNS); the member
 * is unknown, not down. `unreachable` and `timeout` may be the member or the path to it.
 */
export type FailureKind = 'timeout' | 'unreachable' | 'access' | 'forbidden' | 'error' | 'skipped';

export interface ProbeFailure {
  kind: FailureKind;
  /** One line for humans: `etcd-2 (http://127.0.0.1:2379) did not answer Status in 3000 ms`. */
  message: string;
}

export type Outcome<T> =
  | { ok: true; data: T; durationMs: number }
  | { ok: false; failure: ProbeFailure; durationMs: number };

export const skipped = (message: string): Outcome<never> => ({
  ok: false,
  failure: { kind: 'skipped', message },
  durationMs: 0,
});
