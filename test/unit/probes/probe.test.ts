import { describe, expect, it } from '@jest/globals';
import { isElectionError, type Probe, runProbe, toFailure } from '../../../src/probes/probe.js';

/** A probe whose answer is whatever `collect` does: the unit is runProbe's classification. */
function probe(collect: () => Promise<string>, timeoutMs = 3000): Probe<undefined, string> {
  return { kind: 'status', asks: 'Status', timeoutMs, collect };
}

describe('runProbe', () => {
  it('a gRPC DEADLINE_EXCEEDED that beats our own timer is a timeout, worded like one', async () => {
    // What grpc-js rejects with when the call deadline (the same 3 s) fires first.
    const err = Object.assign(
      new Error(
        '4 DEADLINE_EXCEEDED: Deadline exceeded after 3.000s,LB pick: 0.001s,remote_addr=127.0.0.1:2379',
      ),
      { code: 4 },
    );
    const outcome = await runProbe(
      probe(() => Promise.reject(err)),
      undefined,
      { subject: 'etcd-3' },
    );
    expect(outcome).toMatchObject({
      ok: false,
      failure: { kind: 'timeout', message: 'etcd-3 did not answer Status in 3 s' },
    });
  });

  it('our own timer: a probe that never answers times out with the same words', async () => {
    const outcome = await runProbe(
      probe(() => new Promise<string>(() => undefined), 50),
      undefined,
      { subject: 'etcd-2' },
    );
    expect(outcome).toMatchObject({
      ok: false,
      failure: { kind: 'timeout', message: 'etcd-2 did not answer Status in 0.1 s' },
    });
  });

  it('a refused connection is unreachable, and any other error is an error', async () => {
    const refused = await runProbe(
      probe(() => Promise.reject(new Error('14 UNAVAILABLE: No connection established'))),
      undefined,
      { subject: 'etcd-1' },
    );
    expect(refused).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    const other = await runProbe(
      probe(() => Promise.reject(new Error('7 PERMISSION_DENIED'))),
      undefined,
      {
        subject: 'etcd-1',
      },
    );
    expect(other).toMatchObject({
      ok: false,
      failure: { kind: 'error', message: 'etcd-1 failed Status: 7 PERMISSION_DENIED' },
    });
  });

  it('a probe that throws before it returns a promise fails like one that rejects', async () => {
    const outcome = await runProbe(
      probe(() => {
        throw new Error('7 PERMISSION_DENIED');
      }),
      undefined,
      { subject: 'etcd-1' },
    );
    expect(outcome).toMatchObject({
      ok: false,
      failure: { kind: 'error', message: 'etcd-1 failed Status: 7 PERMISSION_DENIED' },
    });
  });
});

describe('toFailure', () => {
  it('calls a member that refused the connection unreachable', () => {
    const failure = toFailure(
      new Error('14 UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:2379'),
      'etcd-2',
      'Status',
    );
    expect(failure).toEqual({
      kind: 'unreachable',
      message: 'etcd-2 is unreachable (Status: UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:2379)',
    });
  });

  it('says a member whose read met an election answered (etcd sends it as UNAVAILABLE too)', () => {
    const failure = toFailure(
      new Error('14 UNAVAILABLE: etcdserver: leader changed'),
      'etcd-2',
      'a linearizable read',
    );
    expect(failure).toEqual({
      kind: 'error',
      message: 'etcd-2 answered, but a linearizable read failed: UNAVAILABLE: etcdserver: leader changed',
    });
    expect(isElectionError(failure.message)).toBe(true);
  });
});
